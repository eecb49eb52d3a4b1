/**
 * The whole run-validity verdict: the client's health (run-validity.ts) and the requests'
 * outcome (request-outcome.ts) in one RunValidity. Re-analysing saved records cannot observe
 * the client again, so its health findings are carried over from the original verdict while
 * the outcome and the token cross-checks are recomputed from the records.
 */
import type { RequestRecord } from '../record/record.js';
import type { RunMetrics } from '../metrics/run-metrics.js';
import { assessOutcome } from './request-outcome.js';
import { assessValidity, CARRIED_CHECKS, CLIENT_CHECKS, partialResultReason, type ClientHealth, type IncompleteWorker, type RunValidity, type ValidityCheck } from './run-validity.js';

export interface VerdictInput {
  records: readonly RequestRecord[];
  requests: RunMetrics['requests'];
  /** Observed client health; null when re-analysing or in virtual time. */
  health: ClientHealth | null;
  /** The original run's verdict (analyze): its client findings are kept. */
  prior?: Partial<RunValidity> | null;
  ignoreEos: boolean;
  clientTokenizer: 'estimate' | 'tokenizer';
  /** Tokens the server adds to each prompt (pre-flight), for the served-vs-asked prompt-length check. */
  promptOverheadTokens?: number | null;
  /** Tokens the chat template adds for each further message of a request (pre-flight). */
  promptPerMessageTokens?: number | null;
  maxFailureRate: number;
  /** Stopped by a signal: cancellations were the user's doing. */
  interrupted: boolean;
  /** Distributed runs: workers whose share did not all arrive (each a partial_result finding). */
  incomplete?: readonly IncompleteWorker[];
}

/** Health that raises nothing: only the record-based checks then speak. */
const UNOBSERVED: ClientHealth = { dispatchLagMs: new Float64Array(0), eventLoopDelayP99Ms: null, eventLoopUtilization: null, burst: false };

export function judgeRun(input: VerdictInput): RunValidity {
  const opts = { ignoreEos: input.ignoreEos, clientTokenizer: input.clientTokenizer, promptOverheadTokens: input.promptOverheadTokens ?? null, promptPerMessageTokens: input.promptPerMessageTokens ?? null };
  const base = assessValidity(input.records, input.health ?? UNOBSERVED, opts);
  const reasons: string[] = [];
  const failed: ValidityCheck[] = [];
  let checks = base.checks;
  if (input.health !== null) {
    reasons.push(...base.reasons);
    failed.push(...base.failed_checks);
  } else {
    // Findings from the records alone (prompt lengths) stand; the client's come from the original run.
    base.reasons.forEach((reason, i) => {
      if (CLIENT_CHECKS.has(base.failed_checks[i]!)) return;
      reasons.push(reason);
      failed.push(base.failed_checks[i]!);
    });
    checks = { ...checks, client_observed: false };
    const prior = input.prior;
    if (prior?.checks?.client_observed !== false && prior?.reasons && prior.checks) {
      // A verdict written before failed_checks existed held client findings only.
      const ids = prior.failed_checks ?? prior.reasons.map((): ValidityCheck => 'dispatch_lag');
      prior.reasons.forEach((reason, i) => {
        if (!CARRIED_CHECKS.has(ids[i]!)) return;
        reasons.push(reason);
        failed.push(ids[i]!);
      });
      const p = prior.checks;
      checks = {
        ...checks,
        client_observed: true,
        dispatch_lag_p99_ms: p.dispatch_lag_p99_ms ?? null,
        dispatch_late: p.dispatch_late ?? null,
        event_loop_delay_p99_ms: p.event_loop_delay_p99_ms ?? null,
        client_event_loop_utilization: p.client_event_loop_utilization ?? null,
      };
    }
  }
  // A worker's missing share comes first among the client's findings: the figures cover part of the run.
  const partial = (input.incomplete ?? []).map(partialResultReason);
  reasons.unshift(...partial);
  failed.unshift(...partial.map((): ValidityCheck => 'partial_result'));
  const outcome = assessOutcome(input.requests, { maxFailureRate: input.maxFailureRate, interrupted: input.interrupted });
  // The outcome first: "no request succeeded" matters more than how the client fared.
  return {
    valid: reasons.length + outcome.findings.length === 0,
    reasons: [...outcome.findings.map((f) => f.reason), ...reasons],
    failed_checks: [...outcome.findings.map((f) => f.check), ...failed],
    warnings: [...outcome.warnings, ...base.warnings],
    checks: { ...checks, failure_rate: input.requests.failure_rate, max_failure_rate: input.maxFailureRate },
  };
}
