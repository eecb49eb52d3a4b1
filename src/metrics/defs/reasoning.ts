/**
 * Reasoning (thinking) models: the user waits through the reasoning before the answer starts.
 * Over ok measure-phase requests. A record without reasoning fields had no reasoning: its answer
 * starts at first_token_ms and all its output tokens are answer tokens, so these figures equal
 * TTFT and TPOT for it (see docs/metrics.md).
 */

import type { RequestRecord } from '../../record/record.js';
import type { RequestMetricDef } from '../metric-def.js';

/** When the answer started: first_answer_ms when the record has reasoning fields, else first_token_ms. */
export function answerStartMs(r: RequestRecord): number | null {
  return r.first_answer_ms !== undefined ? r.first_answer_ms : r.first_token_ms;
}

/** Answer tokens = output_tokens − reasoning_tokens (never below 0). */
export function answerTokens(r: RequestRecord): number {
  return Math.max(0, r.output_tokens - (r.reasoning_tokens ?? 0));
}

/** TTFAT = answer start − sent_ms; undefined (and failing an SLO on it) when no answer came. */
export const ttfat = {
  kind: 'request',
  id: 'ttfat_ms',
  label: 'TTFAT (first answer token)',
  unit: 'ms',
  over: 'ok',
  formula: 'first_answer_ms − sent_ms (first_token_ms without reasoning)',
  value: (r) => {
    const a = answerStartMs(r);
    return a === null ? null : a - r.sent_ms;
  },
  sloWhenUndefined: 'fails',
} as const satisfies RequestMetricDef;

/**
 * Reasoning duration = first_answer_ms − first_reasoning_ms: how long the model thought in the
 * open. Defined only when reasoning was streamed and an answer followed.
 */
export const reasoningDuration = {
  kind: 'request',
  id: 'reasoning_ms',
  label: 'Reasoning duration',
  unit: 'ms',
  over: 'ok',
  formula: 'first_answer_ms − first_reasoning_ms, with streamed reasoning and an answer',
  value: (r) => (r.first_reasoning_ms == null || r.first_answer_ms == null ? null : r.first_answer_ms - r.first_reasoning_ms),
  sloWhenUndefined: 'meets',
} as const satisfies RequestMetricDef;

/**
 * Answer TPOT = (end_ms − answer start) / (answer_tokens − 1): TPOT over the answer alone, the
 * pace a reader of the answer feels. Defined for answer_tokens > 1.
 */
export const answerTpot = {
  kind: 'request',
  id: 'answer_tpot_ms',
  label: 'Answer TPOT',
  unit: 'ms',
  over: 'ok',
  formula: '(end_ms − first_answer_ms) / (answer_tokens − 1), for answer_tokens > 1',
  value: (r) => {
    const a = answerStartMs(r);
    const n = answerTokens(r);
    return a === null || n <= 1 ? null : (r.end_ms - a) / (n - 1);
  },
  sloWhenUndefined: 'meets',
} as const satisfies RequestMetricDef;
