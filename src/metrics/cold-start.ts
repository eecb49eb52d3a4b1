/**
 * Cold start, from records: the first requests after a server came up against the steady state
 * (the rest of the run). "First" = the first `firstN` measured ok requests by send time.
 * Pure: no I/O, no clock.
 */
import type { RequestRecord } from '../record/record.js';
import { summarizeOwned } from './stats.js';

export interface ColdStartLatency {
  first_n: number;
  /** TTFT p50 of the first requests and of the rest (ms); null when a group is empty. */
  first_ttft_p50_ms: number | null;
  steady_ttft_p50_ms: number | null;
  /** first / steady. */
  ttft_ratio: number | null;
  first_e2el_p50_ms: number | null;
  steady_e2el_p50_ms: number | null;
}

function p50(values: number[]): number | null {
  return summarizeOwned(Float64Array.from(values)).p50;
}

export function coldStartLatency(records: readonly RequestRecord[], firstN = 10): ColdStartLatency {
  const ok = records.filter((r) => r.phase === 'measure' && !r.retried && r.status === 'ok' && r.first_token_ms !== null).sort((a, b) => a.sent_ms - b.sent_ms || a.id - b.id);
  const first = ok.slice(0, firstN);
  const rest = ok.slice(firstN);
  const ttft = (rs: RequestRecord[]) => p50(rs.map((r) => (r.first_token_ms as number) - r.sent_ms));
  const e2el = (rs: RequestRecord[]) => p50(rs.map((r) => r.end_ms - r.sent_ms));
  const a = ttft(first);
  const b = ttft(rest);
  return {
    first_n: first.length,
    first_ttft_p50_ms: a,
    steady_ttft_p50_ms: b,
    ttft_ratio: a !== null && b !== null && b > 0 ? a / b : null,
    first_e2el_p50_ms: e2el(first),
    steady_e2el_p50_ms: e2el(rest),
  };
}
