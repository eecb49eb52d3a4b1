/**
 * The report's tables as HTML: figures from result.json, failure examples and sample outputs
 * from the records. Every value goes through escapeHtml.
 */
import type { Distribution, RunMetrics } from '../../metrics/index.js';
import type { RequestRecord } from '../../record/record.js';
import { escapeHtml as e } from './escape.js';
import { REASONING_ROWS } from '../console-summary.js';
import { THROUGHPUT_HEAD, throughputCells } from '../throughput-rows.js';

const fmt = (v: number | null | undefined, digits = 2): string => (v === null || v === undefined ? '—' : v.toFixed(digits));
export const pct = (v: number | null | undefined): string => (v === null || v === undefined ? '—' : `${(v * 100).toFixed(2)}%`);

export function htmlTable(header: string[], rows: string[][], opts: { numeric?: boolean } = {}): string {
  const cls = opts.numeric === false ? '' : ' class="num"';
  return `<div class="table-box"><table${cls}><thead><tr>${header.map((h) => `<th>${e(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c, i) => (i === 0 ? `<th scope="row">${e(c)}</th>` : `<td>${e(c)}</td>`)).join('')}</tr>`)
    .join('')}</tbody></table></div>`;
}

const LATENCY_ROWS: Array<[keyof RunMetrics['latency'], string]> = [
  ['ttft_ms', 'TTFT (ms)'],
  ['ttft_from_schedule_ms', 'TTFT from schedule (ms)'],
  ['tpot_ms', 'TPOT (ms)'],
  ['itl_ms', 'ITL (ms)'],
  ['e2el_ms', 'E2E latency (ms)'],
  ['e2el_from_schedule_ms', 'E2E from schedule (ms)'],
  ['schedule_lag_ms', 'Send lag (ms)'],
];

const latencyRow = (label: string, d: Distribution): string[] => [label, String(d.count), fmt(d.mean), fmt(d.std), fmt(d.min), fmt(d.p50), fmt(d.p90), fmt(d.p95), fmt(d.p99), fmt(d.p99_9), fmt(d.max)];

export function latencyTable(m: RunMetrics): string {
  const rows = LATENCY_ROWS.map(([k, label]) => latencyRow(label, m.latency[k]));
  // A reasoning model's answer latencies (docs/metrics.md), below the rest as on the console.
  if (m.reasoning) for (const [k, label] of REASONING_ROWS) rows.push(latencyRow(label, m.reasoning.latency[k]));
  const table = htmlTable(['Latency', 'n', 'mean', 'std', 'min', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'max'], rows);
  if (!m.reasoning) return table;
  const z = m.reasoning;
  return `${table}<p class="note">Reasoning: ${e(z.requests)} of ${e(m.requests.ok)} ok responses reasoned; ${e(z.reasoning_tokens_total)} reasoning + ${e(z.answer_tokens_total)} answer tokens.</p>`;
}

export function throughputTable(m: RunMetrics): string {
  return htmlTable([...THROUGHPUT_HEAD], throughputCells(m));
}

export function requestsTable(m: RunMetrics): string {
  const r = m.requests;
  const rows: string[][] = [
    ['Measured', String(r.total)],
    ['ok', String(r.ok)],
    ['Failed', `${r.failed} (${pct(r.failure_rate)})`],
    [`Sent late (> ${r.late_threshold_ms} ms)`, String(r.late)],
  ];
  for (const [cls, n] of Object.entries(r.by_error_class).sort((a, b) => b[1]! - a[1]!)) rows.push([`  ${cls}`, String(n)]);
  return htmlTable(['Requests', 'count'], rows);
}

export function groupTable(title: string, groups: Array<[string, RunMetrics]>): string {
  return htmlTable(
    [title, 'requests', 'ok', 'TTFT p50', 'TTFT p99', 'TPOT p50', 'TPOT p99', 'E2EL p50', 'E2EL p99', 'out tok/s', 'goodput attained'],
    groups.map(([name, g]) => [
      name,
      String(g.requests.total),
      String(g.requests.ok),
      fmt(g.latency.ttft_ms.p50),
      fmt(g.latency.ttft_ms.p99),
      fmt(g.latency.tpot_ms.p50),
      fmt(g.latency.tpot_ms.p99),
      fmt(g.latency.e2el_ms.p50),
      fmt(g.latency.e2el_ms.p99),
      fmt(g.throughput.output_tokens_per_s, 1),
      pct(g.goodput?.attained),
    ]),
  );
}

const clip = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n)}…` : s);

/** One row per error class: how many, and the first message seen (as the server sent it, escaped). */
export function failureExamples(records: readonly RequestRecord[]): string | null {
  const byClass = new Map<string, { n: number; first: RequestRecord }>();
  for (const r of records) {
    if (r.status === 'ok') continue;
    const k = r.error_class ?? r.status;
    const entry = byClass.get(k);
    if (entry) entry.n++;
    else byClass.set(k, { n: 1, first: r });
  }
  if (byClass.size === 0) return null;
  return htmlTable(
    ['Class', 'requests', 'HTTP status', 'first message (request id)'],
    [...byClass].map(([k, { n, first }]) => [k, String(n), first.http_status === null ? '—' : String(first.http_status), `${clip(first.error_message ?? '', 300)} (#${first.id})`]),
    { numeric: false },
  );
}

/** A few generated texts, when the run kept them (--keep-text). */
export function sampleOutputs(records: readonly RequestRecord[], max = 5): string | null {
  const kept = records.filter((r) => r.output_text !== null).slice(0, max);
  if (kept.length === 0) return null;
  return htmlTable(
    ['Request', 'task', 'output tokens', 'output (first 400 characters)'],
    kept.map((r) => [`#${r.id}`, r.task ?? '—', String(r.output_tokens), clip(r.output_text ?? '', 400)]),
    { numeric: false },
  );
}
