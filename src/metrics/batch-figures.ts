/**
 * Figures of requests that carry a batch of inputs and generate nothing (embeddings, records
 * with `inputs`, records schema 3): inputs per second and input tokens per second over the
 * measured window, and the batch sizes sent. Tokens-over-time figures (TTFT, TPOT, ITL) have no
 * values for such requests; their latency is E2EL.
 */
import type { RequestRecord } from '../record/record.js';
import type { InputUnit } from '../record/input-unit.js';

export interface BatchFigures {
  /** ok requests that carried `inputs`. */
  requests: number;
  /** Σ inputs of those requests. */
  inputs_total: number;
  /** inputs_total / duration_s (null for a window of no length). */
  inputs_per_s: number | null;
  /** Σ input tokens of those requests / duration_s. */
  input_tokens_per_s: number | null;
  /** Mean and largest inputs per request. */
  batch_size_mean: number;
  batch_size_max: number;
  /** What the inputs are: `documents` for rerank and score, `inputs` otherwise (record/input-unit.ts); absent in results written before it. */
  input_unit?: InputUnit;
}

/** Over the ok requests of a window of `durationS`; null when none of them carried inputs. */
export function batchFigures(ok: readonly RequestRecord[], durationS: number, unit: InputUnit = 'inputs'): BatchFigures | null {
  let requests = 0;
  let inputs = 0;
  let tokens = 0;
  let max = 0;
  for (const r of ok) {
    if (r.inputs === undefined) continue;
    requests++;
    inputs += r.inputs;
    tokens += r.prompt_tokens ?? r.client_prompt_tokens ?? 0;
    max = Math.max(max, r.inputs);
  }
  if (requests === 0) return null;
  const per = (x: number): number | null => (durationS > 0 ? x / durationS : null);
  return { requests, inputs_total: inputs, inputs_per_s: per(inputs), input_tokens_per_s: per(tokens), batch_size_mean: inputs / requests, batch_size_max: max, input_unit: unit };
}
