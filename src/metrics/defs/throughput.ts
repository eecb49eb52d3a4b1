/**
 * Run-level throughputs. Duration = the measured window (compute.ts measuredWindow): first
 * measure-phase sent_ms → the later of the last end_ms of a request that ended by itself (ok,
 * error, timeout: failed requests' time stays in) and the last sent_ms — a cancelled request
 * counts until its send, not its cancellation. Numerators count ok requests only. Every figure
 * is null when the duration is 0.
 */

import { ratio, type RunMetricDef } from '../metric-def.js';

/** Request throughput = ok requests / duration_s. */
export const requestThroughput = {
  kind: 'run',
  id: 'request_throughput',
  label: 'Request throughput',
  unit: 'req/s',
  formula: 'ok requests / duration_s',
  value: (t) => ratio(t.ok, t.duration_s),
} as const satisfies RunMetricDef;

/** Output token throughput = Σ output_tokens (ok) / duration_s. */
export const outputThroughput = {
  kind: 'run',
  id: 'output_throughput',
  label: 'Output token throughput',
  unit: 'tok/s',
  formula: 'Σ output_tokens of ok requests / duration_s',
  value: (t) => ratio(t.output_tokens, t.duration_s),
} as const satisfies RunMetricDef;

/** Total token throughput = Σ (input + output tokens) (ok) / duration_s. */
export const totalTokenThroughput = {
  kind: 'run',
  id: 'total_token_throughput',
  label: 'Total token throughput',
  unit: 'tok/s',
  formula: 'Σ (input_tokens + output_tokens) of ok requests / duration_s',
  value: (t) => ratio(t.input_tokens + t.output_tokens, t.duration_s),
} as const satisfies RunMetricDef;

/** Goodput = ok requests meeting every SLO / duration_s (null without SLOs). */
export const goodput = {
  kind: 'run',
  id: 'goodput',
  label: 'Goodput',
  unit: 'req/s',
  formula: 'ok requests meeting every per-request SLO / duration_s',
  value: (t) => (t.good === null ? null : ratio(t.good, t.duration_s)),
} as const satisfies RunMetricDef;

/** Goodput in tokens = Σ output_tokens of the good requests / duration_s. */
export const goodputOutputThroughput = {
  kind: 'run',
  id: 'goodput_output_throughput',
  label: 'Goodput (output tokens)',
  unit: 'tok/s',
  formula: 'Σ output_tokens of ok requests meeting every SLO / duration_s',
  value: (t) => (t.good_output_tokens === null ? null : ratio(t.good_output_tokens, t.duration_s)),
} as const satisfies RunMetricDef;

/** Fraction of measure-phase attempts (any status) that were ok and met every SLO. */
export const goodputAttained = {
  kind: 'run',
  id: 'goodput_attained',
  label: 'SLO attainment',
  unit: 'ratio',
  formula: 'ok requests meeting every SLO / all measure-phase requests',
  value: (t) => (t.good === null ? null : ratio(t.good, t.total)),
} as const satisfies RunMetricDef;

/**
 * Peak output throughput = most output tokens in one 1-second bucket (buckets start at the
 * window start). Each ok request's output_tokens are spread over its chunk times, each chunk
 * weighing output_tokens / chunks (all at end_ms when it has no chunks). See peaks.ts.
 */
export const peakOutputThroughput = {
  kind: 'run',
  id: 'peak_output_throughput',
  label: 'Peak output throughput',
  unit: 'tok/s',
  formula: 'max over 1 s buckets of output tokens whose chunk arrived in the bucket',
  value: (t) => t.peak_output_tokens_per_s,
} as const satisfies RunMetricDef;

/**
 * Peak concurrency = most requests (any status) in flight at one instant, a request being
 * in flight over [sent_ms, end_ms). Recent vLLM sweeps the same half-open intervals but over
 * successful requests only (older vLLM counted requests overlapping a 1-second bucket, which
 * is larger). See peaks.ts.
 */
export const peakConcurrency = {
  kind: 'run',
  id: 'peak_concurrency',
  label: 'Peak concurrency',
  unit: 'requests',
  formula: 'max over instants of requests with sent_ms ≤ t < end_ms',
  value: (t) => t.peak_concurrency,
} as const satisfies RunMetricDef;
