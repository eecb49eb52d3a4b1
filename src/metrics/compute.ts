/**
 * Records → RunMetrics. Pure: no I/O, no clock. Only measure-phase records count.
 * Every formula lives in its definition under defs/; this file gathers sums, counts and
 * value arrays and hands them to the definitions.
 */

import { batchFigures } from './batch-figures.js';
import { mediaFigures } from './media-figures.js';
import { offeredWindow } from './offered-window.js';
import type { ErrorClass, RequestRecord, TokenSource } from '../record/record.js';
import { availability, findOutages } from './defs/availability.js';
import { cancelRate, errorRate, failureRate, timeoutRate } from './defs/errors.js';
import { degradedRate, oomRate, retryRate } from './defs/stability.js';
import {
  goodput,
  goodputAttained,
  goodputOutputThroughput,
  outputThroughput,
  requestThroughput,
  totalTokenThroughput,
} from './defs/throughput.js';
import { checkSlos } from './goodput.js';
import type { PooledMetricDef, RequestMetricDef } from './metric-def.js';
import { summarizeBatches } from './stream-summary.js';
import { chunkGapVisitor, gapsSpreadingTokens } from './chunk-gaps.js';
import { tokenSeconds } from './peaks.js';
import { LATENCY_METRICS, REASONING_METRICS } from './registry.js';
import { answerTokens } from './defs/reasoning.js';
import type { MetricsOptions, RunMetrics } from './run-metrics.js';
import { DEFAULT_LATE_THRESHOLD_MS, runTotals, type TimeSpan } from './run-totals.js';
import { summarizeOwned, type Distribution } from './stats.js';
import { kept } from './kept.js';

export { kept } from './kept.js';

export type { TimeSpan } from './run-totals.js';

/**
 * The measure-phase records, in order. When every record is one (what a run without warmup or
 * cooldown holds) this is `records` itself: no second array of a long run's records, which is
 * why the result is read-only.
 */
export function measureRecords(records: readonly RequestRecord[]): readonly RequestRecord[] {
  return kept(records, (r) => r.phase === 'measure');
}


/**
 * The measured window over the given records (null if none): first sent_ms → the later of the
 * last end_ms of a request that ended by itself (ok, error, timeout) and the last sent_ms. A
 * cancelled request counts until its send, not its cancellation: after a --duration run the
 * client lets requests finish for up to --grace, and a server that keeps connections open
 * without answering would otherwise stretch the window by the grace the client chose (halving
 * the throughputs of a 30 s run with a 30 s grace) though it served nothing in it.
 */
export function measuredWindow(measure: readonly RequestRecord[]): TimeSpan | null {
  if (measure.length === 0) return null;
  let start = Infinity;
  let end = -Infinity;
  for (const r of measure) {
    start = Math.min(start, r.sent_ms);
    end = Math.max(end, r.status === 'cancelled' ? r.sent_ms : r.end_ms, r.sent_ms);
  }
  return { start_ms: start, end_ms: end };
}

/** Every figure of a run from its records (warmup and cooldown records are ignored). */
export function computeMetrics(records: readonly RequestRecord[], opts: MetricsOptions = {}): RunMetrics {
  const measure = measureRecords(records);
  return computeOver(measure, measuredWindow(measure), opts);
}

/**
 * RunMetrics per task label (null → 'default'), keys sorted. Every task is measured over the
 * run's window (not its own first send to last end), so task throughputs add up to the run's.
 */
export function computeMetricsByTask(
  records: readonly RequestRecord[],
  opts: MetricsOptions = {},
): Record<string, RunMetrics> {
  const measure = measureRecords(records);
  const window = measuredWindow(measure);
  const out: Record<string, RunMetrics> = {};
  for (const [task, g] of groupBy(measure, (r) => r.task ?? 'default')) out[task] = computeOver(g, window, opts);
  return out;
}

/**
 * RunMetrics per sweep stage, keyed by stage index. Stages run one after another, so each is
 * measured over its own window (its first send to its last end).
 */
export function computeMetricsByStage(
  records: readonly RequestRecord[],
  opts: MetricsOptions = {},
): Record<number, RunMetrics> {
  const out: Record<number, RunMetrics> = {};
  for (const [stage, g] of groupBy(measureRecords(records), (r) => r.stage)) {
    out[stage] = computeOver(g, measuredWindow(g), opts);
  }
  return out;
}

/** Groups in ascending key order. */
function groupBy<K extends string | number>(
  records: readonly RequestRecord[],
  key: (r: RequestRecord) => K,
): Array<[K, RequestRecord[]]> {
  const groups = new Map<K, RequestRecord[]>();
  for (const r of records) {
    const k = key(r);
    let g = groups.get(k);
    if (g === undefined) groups.set(k, (g = []));
    g.push(r);
  }
  return [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Figures of measure-phase `measure` records over `window`. */
export function computeOver(
  measure: readonly RequestRecord[],
  window: TimeSpan | null,
  opts: MetricsOptions = {},
): RunMetrics {
  const slos = opts.slos ?? [];
  checkSlos(slos);
  const lateMs = opts.lateThresholdMs ?? DEFAULT_LATE_THRESHOLD_MS;
  const wanted = opts.percentiles ?? [];
  for (const p of wanted) if (!(p > 0 && p < 100)) throw new RangeError(`a requested percentile must be > 0 and < 100, got ${p}`);

  const byErrorClass: Partial<Record<ErrorClass, number>> = {};
  const sources: Partial<Record<TokenSource, number>> = {};
  // A request's figures are its last attempt's (--retries): superseded attempts are only counted (t.retried).
  // Each `measure` itself, or the final attempts, when all are (kept() builds no copy then).
  const final = kept(measure, (r) => !r.retried);
  const ok = kept(final, (r) => r.status === 'ok');
  let inputUnknown = 0;
  let requestedTotal: number | null = 0;
  for (const r of final) {
    if (r.error_class !== null) byErrorClass[r.error_class] = (byErrorClass[r.error_class] ?? 0) + 1;
    if (r.status !== 'ok') continue;
    if ((r.prompt_tokens ?? r.client_prompt_tokens) === null) inputUnknown++;
    requestedTotal =
      requestedTotal === null || r.requested_output_tokens === null ? null : requestedTotal + r.requested_output_tokens;
    sources[r.token_source] = (sources[r.token_source] ?? 0) + 1;
  }
  const hasGoodput = slos.length > 0;

  // One buffer for every per-request metric's values, in turn (each is summarized before the next is written).
  const scratch = new Float64Array(final.length);
  // The per-second output tokens (the peak) are spread by ITL's first pass over the chunks, which reads them anyway.
  const tokens = window === null ? undefined : tokenSeconds(window.start_ms, window.end_ms);
  const latency = {} as RunMetrics['latency'];
  let spread = tokens === undefined;
  for (const def of LATENCY_METRICS) {
    const fused = !spread && def.kind === 'pooled' && def.chunkGaps ? gapsSpreadingTokens(measure, ok, def.fill, tokens!) : null;
    if (fused === null) {
      latency[def.id] = distributionOf(def, def.over === 'ok' ? ok : final, wanted, scratch);
      continue;
    }
    latency[def.id] = summarizeBatches(fused.visit, undefined, wanted);
    fused.done();
    spread = true;
  }
  const t = runTotals(measure, window, slos, lateMs, spread ? tokens : undefined);
  const reasoning = reasoningSection(ok, wanted, scratch);

  return {
    schema: 'infermeter.metrics/1',
    start_ms: window?.start_ms ?? null,
    end_ms: window?.end_ms ?? null,
    duration_s: t.duration_s,
    requests: {
      total: t.total,
      ok: t.ok,
      failed: t.total - t.ok,
      by_status: t.by_status,
      by_error_class: byErrorClass,
      late: t.late,
      late_threshold_ms: lateMs,
      error_rate: errorRate.value(t),
      timeout_rate: timeoutRate.value(t),
      cancel_rate: cancelRate.value(t),
      failure_rate: failureRate.value(t),
      oom: t.oom,
      oom_rate: oomRate.value(t),
      degraded: t.degraded,
      degraded_rate: degradedRate.value(t),
      retried: t.retried,
      retry_rate: retryRate.value(t),
    },
    tokens: {
      input_total: t.input_tokens,
      input_unknown: inputUnknown,
      output_total: t.output_tokens,
      output_requested_total: ok.length === 0 ? null : requestedTotal,
      token_sources: sources,
    },
    throughput: {
      request_per_s: requestThroughput.value(t),
      output_tokens_per_s: outputThroughput.value(t),
      total_tokens_per_s: totalTokenThroughput.value(t),
      peak_output_tokens_per_s: t.peak_output_tokens_per_s,
      peak_concurrency: t.peak_concurrency,
      offered_window: offeredWindow(measure, window),
    },
    availability: { value: availability.value(t), downtime_s: t.downtime_ms / 1000, outages: window === null ? [] : findOutages(measure, window.end_ms) },
    latency,
    reasoning,
    batch: batchFigures(ok, t.duration_s, opts.inputUnit),
    media: mediaFigures(ok, t.duration_s),
    goodput: hasGoodput
      ? {
          slos: slos.map((s) => ({ metric: s.metric, threshold_ms: s.threshold_ms })),
          good: t.good ?? 0,
          request_per_s: goodput.value(t),
          output_tokens_per_s: goodputOutputThroughput.value(t),
          attained: goodputAttained.value(t),
        }
      : null,
  };
}

/** Reasoning figures of the ok requests; null when none of them carried reasoning. */
function reasoningSection(ok: readonly RequestRecord[], wanted: readonly number[], scratch: Float64Array): RunMetrics['reasoning'] {
  let requests = 0;
  let thought = 0;
  let answered = 0;
  for (const r of ok) {
    if (r.reasoning_tokens !== undefined) requests++;
    thought += r.reasoning_tokens ?? 0;
    answered += answerTokens(r);
  }
  if (requests === 0) return null;
  const latency = {} as NonNullable<RunMetrics['reasoning']>['latency'];
  for (const def of REASONING_METRICS) latency[def.id] = distributionOf(def, ok, wanted, scratch);
  return { requests, reasoning_tokens_total: thought, answer_tokens_total: answered, latency };
}

/**
 * Values of one metric over `population`, summarized (undefined values left out); `wanted`: further
 * percentiles. A per-request metric's values are written into `scratch` (≥ population.length
 * long), which is then sorted: the caller's reusable buffer.
 */
function distributionOf(def: RequestMetricDef | PooledMetricDef, population: readonly RequestRecord[], wanted: readonly number[], scratch: Float64Array): Distribution {
  if (def.kind === 'pooled') {
    // Pooled values (every ITL gap) can be tens of millions: summarized without a copy, and
    // per step where records share a step timeline (chunk-gaps.ts).
    if (def.chunkGaps) return summarizeBatches(chunkGapVisitor(population, def.fill), undefined, wanted);
    let buf = new Float64Array(64);
    return summarizeBatches((emit) => {
      for (const r of population) {
        const k = def.count(r);
        if (k > buf.length) buf = new Float64Array(k * 2);
        def.fill(r, buf, 0);
        emit(buf, k);
      }
    }, undefined, wanted);
  }
  const out = scratch;
  let k = 0;
  for (const r of population) {
    const v = def.value(r);
    if (v !== null) out[k++] = v;
  }
  return summarizeOwned(out.subarray(0, k), wanted);
}
