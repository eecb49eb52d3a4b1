/**
 * Stability figures beyond the status rates: out-of-memory failures (from the server's status
 * and error text), degraded answers (ok, but cut short without a reason), and retries. Over every
 * measure-phase attempt, like the failure rates.
 */

import type { RequestRecord } from '../../record/record.js';
import { ratio, type RunMetricDef } from '../metric-def.js';

/** What engines say when they run out of GPU memory (PyTorch/CUDA, vLLM, SGLang, TGI, llama.cpp). */
const OOM_TEXT = /out of memory|\bOOM\b|CUBLAS_STATUS_ALLOC_FAILED|failed to allocate|insufficient memory|KV cache is full/i;

/** A failed attempt whose error says the server ran out of (GPU) memory. */
export function isOom(r: RequestRecord): boolean {
  return r.status === 'error' && r.error_message !== null && OOM_TEXT.test(r.error_message);
}

/** Reasons that explain an answer shorter than asked. */
const EXPLAINED_STOP = new Set(['stop', 'eos', 'tool_calls', 'function_call', 'content_filter']);

/**
 * An ok answer that is degraded: shorter than the requested output without a reason that
 * explains it (no finish_reason, or `length`/`abort` before max_tokens).
 */
export function isDegraded(r: RequestRecord): boolean {
  if (r.status !== 'ok' || r.requested_output_tokens === null) return false;
  if (r.output_tokens >= r.requested_output_tokens) return false;
  return r.finish_reason === null || !EXPLAINED_STOP.has(r.finish_reason);
}

/** OOM rate = attempts failed by out-of-memory / all attempts. */
export const oomRate = {
  kind: 'run',
  id: 'oom_rate',
  label: 'OOM rate',
  unit: 'ratio',
  formula: "status 'error' with an out-of-memory message / total",
  value: (t) => ratio(t.oom, t.total),
} as const satisfies RunMetricDef;

/** Degraded rate = ok answers cut before max_tokens without an explaining finish_reason / all attempts. */
export const degradedRate = {
  kind: 'run',
  id: 'degraded_rate',
  label: 'Degraded answer rate',
  unit: 'ratio',
  formula: 'ok with output_tokens < requested and finish_reason not stop/eos/tool_calls/content_filter / total',
  value: (t) => ratio(t.degraded, t.total),
} as const satisfies RunMetricDef;

/** Retry rate = attempts superseded by a retry / requests (their last attempts). */
export const retryRate = {
  kind: 'run',
  id: 'retry_rate',
  label: 'Retry rate',
  unit: 'ratio',
  formula: 'attempts followed by a retry / requests',
  value: (t) => ratio(t.retried, t.total),
} as const satisfies RunMetricDef;
