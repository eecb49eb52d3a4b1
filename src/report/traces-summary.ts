/**
 * What the summary, the Markdown and the report say about the traces join (result.json `traces`,
 * observe/otlp/trace-join.ts): the headline on where the slowest requests spent their time.
 */
import type { TraceFigures } from '../observe/otlp/trace-join.js';

const pct = (v: number | null) => (v === null ? '—' : `${Math.round(v * 100)}%`);

/**
 * "p99 TTFT requests spent 81% queued (the slowest 2 of 200 by TTFT, mean 412.0 ms; 12% prefill,
 * 7% network+client)"; null when nothing matched.
 */
export function slowestLine(f: Pick<TraceFigures, 'slowest' | 'matched'>): string | null {
  const s = f.slowest;
  if (!s) return null;
  return `p99 TTFT requests spent ${pct(s.queue_share)} queued (the slowest ${s.requests} of ${f.matched} by TTFT, mean ${s.ttft_ms_mean.toFixed(1)} ms; ${pct(s.prefill_share)} prefill, ${pct(s.network_client_share)} network+client)`;
}
