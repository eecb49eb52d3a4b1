/** What `infermeter watch` prints each refresh: a table on a terminal, one line otherwise, or JSON lines. */
import type { SeriesId } from '../observe/engines.js';
import { SERIES, SERIES_IDS } from '../observe/engines.js';
import type { SourceReport } from '../observe/scraper.js';
import type { SeriesSummary } from '../observe/series.js';
import type { ObjectiveState } from '../observe/server-objectives.js';

export interface WatchFrame {
  /** Wall-clock time of the refresh (ISO). */
  at: string;
  window_s: number;
  sources: SourceReport[];
  series: Partial<Record<SeriesId, SeriesSummary>>;
  /** Lines about SLOs (attainment, alerts), filled by the caller. */
  slo_lines?: string[];
  /** The SLOs' state (watch --slo). */
  slos?: ObjectiveState[];
}

function fmt(id: SeriesId, x: number | null | undefined): string {
  if (x === null || x === undefined) return '—';
  const unit = SERIES[id].unit;
  if (unit === 'ratio') return `${(x * 100).toFixed(1)}%`;
  if (unit === 's') return x < 1 ? `${(x * 1000).toFixed(1)} ms` : `${x.toFixed(2)} s`;
  if (unit === 'bytes') return `${(x / 2 ** 30).toFixed(2)} GiB`;
  if (unit === '1/s') return `${x.toFixed(1)}/s`;
  if (unit === 'W') return `${x.toFixed(0)} W`;
  return x.toFixed(1);
}

/** The table: one row per series present, with mean/peak or mean/p50/p99 as the series kind has them. */
export function watchTable(f: WatchFrame): string {
  const rows: string[][] = [['series', 'mean', 'p50 / peak', 'p99']];
  for (const id of SERIES_IDS) {
    const s = f.series[id];
    if (!s) continue;
    const kind = SERIES[id].kind;
    if (kind === 'histogram') rows.push([SERIES[id].label, fmt(id, s.mean), fmt(id, s.p50), fmt(id, s.p99)]);
    else rows.push([SERIES[id].label, fmt(id, s.mean), s.max !== undefined ? fmt(id, s.max) : '', '']);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const ok = f.sources.filter((s) => s.scrapes > 0).length;
  const head = `infermeter watch — ${f.at} — last ${f.window_s} s — ${ok}/${f.sources.length} endpoints (${[...new Set(f.sources.flatMap((s) => s.engines))].join(', ') || 'none recognized'})`;
  const problems = f.sources.filter((s) => s.problem).map((s) => `  ${s.url}: ${s.problem}`);
  return [head, line(rows[0]!), ...rows.slice(1).map(line), ...(f.slo_lines ?? []), ...problems].join('\n');
}

/** One line per refresh for logs and pipes: the series people look at first. */
export function watchLine(f: WatchFrame): string {
  const s = f.series;
  const parts = [
    f.at,
    `running ${fmt('running', s.running?.mean)}`,
    `waiting ${fmt('waiting', s.waiting?.mean)}`,
    `kv ${fmt('kv_usage', s.kv_usage?.mean)}`,
    `gen ${fmt('generation_tokens_per_s', s.generation_tokens_per_s?.mean)}`,
    `ttft p50 ${fmt('ttft_s', s.ttft_s?.p50)} p99 ${fmt('ttft_s', s.ttft_s?.p99)}`,
  ];
  return [parts.join('  '), ...(f.slo_lines ?? [])].join('\n');
}
