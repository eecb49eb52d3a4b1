import type { RequestMetricDef } from '../metric-def.js';

/**
 * TPOT (time per output token, excluding the first), vLLM's definition:
 *
 *   TPOT = (E2EL − TTFT) / (output_tokens − 1) = (end_ms − first_token_ms) / (output_tokens − 1)
 *
 * Defined only for output_tokens > 1 (and a first token); otherwise left out of TPOT
 * statistics and counted as meeting a TPOT SLO, as vLLM does.
 */
export const tpot = {
  kind: 'request',
  id: 'tpot_ms',
  label: 'TPOT',
  unit: 'ms',
  over: 'ok',
  formula: '(E2EL − TTFT) / (output_tokens − 1), for output_tokens > 1',
  sql: 'CASE WHEN output_tokens > 1 AND first_token_ms IS NOT NULL THEN ((end_ms - sent_ms) - (first_token_ms - sent_ms)) / (output_tokens - 1) END',
  value: (r) => {
    if (r.output_tokens <= 1 || r.first_token_ms === null) return null;
    const e2el = r.end_ms - r.sent_ms;
    const ttft = r.first_token_ms - r.sent_ms;
    return (e2el - ttft) / (r.output_tokens - 1);
  },
  sloWhenUndefined: 'meets',
} as const satisfies RequestMetricDef;
