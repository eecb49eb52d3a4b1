/**
 * The run-validity verdict: did the *client* keep up? A load generator that saturates
 * reports its own limits as the server's; this says so, and why, in every result.
 * Pure: takes records and the runner's self-measurements, returns the verdict.
 */
import type { RequestRecord } from '../record/record.js';
import { summarize } from '../metrics/stats.js';
import { checkPromptLengths, promptLengthReason } from './prompt-lengths.js';
import { DEFAULT_LATE_THRESHOLD_MS } from '../metrics/run-totals.js';

export interface ClientHealth {
  /** Dispatcher lateness per request (when the loop reached it − when it was due), open loop only. */
  dispatchLagMs: Float64Array;
  /** Event-loop delay p99 over the run, ms (perf_hooks.monitorEventLoopDelay). */
  eventLoopDelayP99Ms: number | null;
  /**
   * Event-loop utilization of the busiest sending thread (0–1, perf_hooks): the share of wall time
   * its loop spent running code rather than waiting for I/O. Near 1, timestamps queue behind work.
   */
  eventLoopUtilization: number | null;
  /** True when the schedule sends everything at t = 0 (rate = inf): lateness is inherent, not a fault. */
  burst: boolean;
}

export interface ValidityThresholds {
  dispatchLagP99Ms: number;
  eventLoopDelayP99Ms: number;
  eventLoopUtilization: number;
  /** Relative prompt-token disagreement above which a tokenizer count is called wrong. */
  promptTokenTolerance: number;
}

export const DEFAULT_VALIDITY_THRESHOLDS: ValidityThresholds = {
  dispatchLagP99Ms: 10,
  eventLoopDelayP99Ms: 50,
  eventLoopUtilization: 0.9,
  promptTokenTolerance: 0.05,
};

/** The client-health checks: each says the figures describe the client, not the server. */
export type ClientCheck = 'dispatch_lag' | 'event_loop' | 'client_busy';
/** Stable ids of every check that can invalidate a run (the request-outcome ones: request-outcome.ts; prompt_lengths: prompt-lengths.ts). */
export type ValidityCheck = ClientCheck | 'no_success' | 'failure_rate' | 'prompt_lengths' | 'partial_result';
export const CLIENT_CHECKS: ReadonlySet<ValidityCheck> = new Set<ValidityCheck>(['dispatch_lag', 'event_loop', 'client_busy']);
/** Findings the records alone cannot show again, so `analyze` carries them over from the original verdict. */
export const CARRIED_CHECKS: ReadonlySet<ValidityCheck> = new Set<ValidityCheck>([...CLIENT_CHECKS, 'partial_result']);

/** A worker of a distributed run whose share did not all arrive (docs/distributed.md). */
export interface IncompleteWorker {
  /** Worker process index. */
  node: number;
  /** Why: lost (no heartbeat), or records missing. */
  reason: string;
  /** Requests of its share without a record; null when the run stopped by time (its share's size is unknown). */
  missing: number | null;
  missing_ids: number[];
  /** Records received from it. */
  received: number;
}

/** How many missing ids a reason lists before "+N more". */
const IDS_SHOWN = 8;

/** The partial-result finding for one worker: it names the worker and its missing requests. */
export function partialResultReason(w: IncompleteWorker): string {
  const ids = w.missing_ids.slice(0, IDS_SHOWN).join(', ') + (w.missing_ids.length > IDS_SHOWN ? `, … +${w.missing_ids.length - IDS_SHOWN} more` : '');
  const missing =
    w.missing === null ? 'how many of its requests are missing is unknown (the run stops by time)' : `${w.missing} of its requests have no record${w.missing > 0 ? ` (ids ${ids})` : ''}`;
  return `partial result: worker ${w.node} ${w.reason}; ${missing}; ${w.received} of its records were received and are kept`;
}

export interface RunValidity {
  valid: boolean;
  /** Why the run is invalid (empty when valid). */
  reasons: string[];
  /** The check behind each reason, in the same order (stable ids for scripts; absent in results before 0.2). */
  failed_checks: ValidityCheck[];
  /** Things worth knowing that do not invalidate the figures. */
  warnings: string[];
  checks: {
    /** False when the client's health was not observed (sim run, analyze of records alone): its checks are null. */
    client_observed: boolean;
    dispatch_lag_p99_ms: number | null;
    /** Requests the dispatcher itself reached more than the late threshold after their due time (every phase); the rest of the late ones waited at the --max-concurrency gate. */
    dispatch_late: number | null;
    event_loop_delay_p99_ms: number | null;
    client_event_loop_utilization: number | null;
    /** ok requests whose usage output count ≠ requested max_tokens, when ignore_eos was asked. */
    output_tokens_mismatched: number | null;
    /** Mean of server prompt_tokens / client count over ok requests having both. */
    prompt_tokens_ratio: number | null;
    /** ok requests counted from content chunks because the server sent no usage. */
    output_counted_from_chunks: number;
    /** Measure-phase failures / attempts (metrics.requests.failure_rate) and the limit it was held to. */
    failure_rate: number | null;
    max_failure_rate: number | null;
  };
}

export function assessValidity(
  records: readonly RequestRecord[],
  health: ClientHealth,
  opts: { ignoreEos: boolean; clientTokenizer: 'estimate' | 'tokenizer'; promptOverheadTokens?: number | null; promptPerMessageTokens?: number | null },
  t: ValidityThresholds = DEFAULT_VALIDITY_THRESHOLDS,
): RunValidity {
  const reasons: string[] = [];
  const failed: ValidityCheck[] = [];
  const warnings: string[] = [];
  const lagP99 = summarize(health.dispatchLagMs).p99;
  let dispatchLate = 0;
  for (const lag of health.dispatchLagMs) if (lag > DEFAULT_LATE_THRESHOLD_MS) dispatchLate++;
  if (!health.burst && lagP99 !== null && lagP99 > t.dispatchLagP99Ms) {
    failed.push('dispatch_lag');
    reasons.push(`client fell behind its schedule: dispatch lag p99 ${lagP99.toFixed(1)} ms > ${t.dispatchLagP99Ms} ms`);
  }
  if (health.eventLoopDelayP99Ms !== null && health.eventLoopDelayP99Ms > t.eventLoopDelayP99Ms) {
    failed.push('event_loop');
    reasons.push(`client event loop saturated: delay p99 ${health.eventLoopDelayP99Ms.toFixed(1)} ms > ${t.eventLoopDelayP99Ms} ms (timestamps may be late)`);
  }
  if (health.eventLoopUtilization !== null && health.eventLoopUtilization > t.eventLoopUtilization) {
    failed.push('client_busy');
    reasons.push(`client event loop saturated: busy ${(health.eventLoopUtilization * 100).toFixed(0)}% of the time > ${(t.eventLoopUtilization * 100).toFixed(0)}%`);
  }

  let mismatched = 0;
  let ratioSum = 0;
  let ratioN = 0;
  let fromChunks = 0;
  let wrongTokenizer = 0;
  let usageRejected = 0;
  let firstRejection = '';
  let afterDone = 0;
  for (const r of records) {
    if (r.phase !== 'measure') continue;
    if (r.usage_rejected !== undefined && usageRejected++ === 0) firstRejection = r.usage_rejected;
    if ((r.events_after_done ?? 0) > 0) afterDone++;
    if (r.status !== 'ok') continue;
    if (r.token_source === 'chunks') fromChunks++;
    if (opts.ignoreEos && r.token_source === 'usage' && r.requested_output_tokens !== null && r.output_tokens !== r.requested_output_tokens) mismatched++;
    if (r.token_source === 'usage' && r.prompt_tokens !== null && r.client_prompt_tokens) {
      const ratio = r.prompt_tokens / r.client_prompt_tokens;
      ratioSum += ratio;
      ratioN++;
      if (Math.abs(ratio - 1) > t.promptTokenTolerance) wrongTokenizer++;
    }
  }
  if (mismatched > 0) warnings.push(`${mismatched} requests produced a different output length than max_tokens despite ignore_eos: the server may not honour ignore_eos`);
  if (usageRejected > 0) {
    warnings.push(`${usageRejected} requests reported impossible usage (first: ${firstRejection}); their tokens were counted as if the server had sent no usage`);
  }
  if (afterDone > 0) warnings.push(`${afterDone} requests had events after data: [DONE]; they were ignored`);
  if (fromChunks > 0) warnings.push(`${fromChunks} requests had no usage from the server; output tokens counted from content chunks (may undercount)`);
  if (opts.clientTokenizer === 'tokenizer' && wrongTokenizer > 0) {
    warnings.push(`${wrongTokenizer} requests: server prompt_tokens differ from the client tokenizer by > ${t.promptTokenTolerance * 100}%: is --tokenizer the served model's?`);
  }
  const promptLengths = promptLengthReason(checkPromptLengths(records, opts.promptOverheadTokens ?? null, opts.promptPerMessageTokens ?? null), t.promptTokenTolerance, opts.clientTokenizer);
  if (promptLengths !== null) {
    failed.push('prompt_lengths');
    reasons.push(promptLengths);
  }
  return {
    valid: reasons.length === 0,
    reasons,
    failed_checks: failed,
    warnings,
    checks: {
      client_observed: true,
      dispatch_lag_p99_ms: lagP99,
      dispatch_late: health.dispatchLagMs.length > 0 ? dispatchLate : null,
      event_loop_delay_p99_ms: health.eventLoopDelayP99Ms,
      client_event_loop_utilization: health.eventLoopUtilization,
      output_tokens_mismatched: opts.ignoreEos ? mismatched : null,
      prompt_tokens_ratio: ratioN > 0 ? ratioSum / ratioN : null,
      output_counted_from_chunks: fromChunks,
      failure_rate: null,
      max_failure_rate: null,
    },
  };
}
