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

const COMPONENT_LABELS: Array<[keyof TraceFigures['components'], string]> = [
  ['queue_ms', 'queue'],
  ['prefill_ms', 'prefill'],
  ['decode_ms', 'decode'],
  ['server_ttft_ms', 'server TTFT'],
  ['network_client_ms', 'network + client'],
];

/** How many matched, and why the rest did not: one sentence. */
export function matchedSentence(t: TraceFigures): string {
  const why: string[] = [];
  if (t.unmatched.no_span > 0) why.push(`${t.unmatched.no_span} without a span`);
  if (t.unmatched.no_timings > 0) why.push(`${t.unmatched.no_timings} with a span but no timing attributes`);
  if ((t.unmatched.no_trace_id ?? 0) > 0) why.push(`${t.unmatched.no_trace_id} more sent without a trace id`);
  const spans = t.spans_unmatched > 0 ? ` ${t.spans_unmatched} of ${t.spans_received} spans belonged to no request of this run (probes, other clients).` : '';
  const refused = t.payloads_refused > 0 ? ` ${t.payloads_refused} payloads or lines did not decode.` : '';
  return `${t.matched} of ${t.requests} requests matched to a server span${why.length ? ` (${why.join(', ')})` : ''}.${spans}${refused}`;
}

/** The report's traces section: the headline, the match counts, the components' percentiles (ms). */
export function tracesSectionHtml(t: TraceFigures, table: (head: string[], rows: string[][]) => string, esc: (s: string) => string): string {
  const ms = (v: number | null) => (v === null ? '—' : v.toFixed(1));
  const rows = COMPONENT_LABELS.map(([k, label]) => {
    const c = t.components[k];
    return [label, String(c.count), ms(c.mean), ms(c.p50), ms(c.p90), ms(c.p99)];
  });
  const headline = slowestLine(t);
  return `${headline ? `<p><strong>${esc(headline)}</strong>.</p>` : ''}<p class="note">${esc(matchedSentence(t))}</p>${table(['per request (ms)', 'n', 'mean', 'p50', 'p90', 'p99'], rows)}`;
}
