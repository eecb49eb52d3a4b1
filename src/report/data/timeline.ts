/**
 * The timeline: the client's latency and the server's own series (server-metrics.jsonl, docs/
 * observe.md) on one time axis, one row per panel, as long-format rows the facet chart reads
 * (charts/timeline-chart.ts). Server windows (between two scrapes of one endpoint,
 * observe/series.ts) are placed in the report's window holding their midpoint; across
 * endpoints (replicas), counts and rates add and ratios average, as result.json's summaries do.
 * Panels without data have no rows, so they are not drawn.
 */
import type { SeriesId } from '../../observe/engines.js';
import { windowsOf, type ScrapeWindow } from '../../observe/series.js';
import type { Snapshot } from '../../observe/snapshot.js';
import type { SloRule } from './slo-rules.js';
import type { SeriesPoint } from './time-series.js';

export interface TimelineRow {
  /** Window start, s from the run's t = 0 (the client series' time base). */
  t: number;
  /** Row title with its unit, e.g. "KV cache usage (%)". */
  panel: string;
  /** The panel's rank from the top. */
  order: number;
  series: string;
  value: number | null;
  /** Set on an SLO threshold row: drawn as a horizontal rule in its panel. */
  rule?: number;
}

interface PanelDef {
  panel: string;
  /** Series of the panel: [server series, name in the legend, scale to the panel's unit]. */
  lines: Array<[SeriesId, string, number]>;
}

const SERVER_PANELS: PanelDef[] = [
  { panel: 'server: requests running / waiting', lines: [['running', 'running', 1], ['waiting', 'waiting', 1]] },
  { panel: 'server: KV cache usage (%)', lines: [['kv_usage', 'KV usage', 100]] },
  { panel: 'server: preemptions (1/s)', lines: [['preemptions_per_s', 'preemptions/s', 1]] },
  { panel: 'server: TTFT split, mean (ms)', lines: [['queue_time_s', 'queue', 1000], ['prefill_time_s', 'prefill', 1000]] },
  { panel: 'server: prefix-cache hit rate (%)', lines: [['prefix_hit_rate', 'prefix hits', 100]] },
  { panel: 'server: tokens/s', lines: [['prompt_tokens_per_s', 'prompt', 1], ['generation_tokens_per_s', 'generated', 1]] },
  { panel: 'GPU utilization (%)', lines: [['gpu_util', 'GPU util', 100]] },
  { panel: 'GPU memory used (GiB)', lines: [['gpu_mem_used_bytes', 'GPU memory', 1 / 2 ** 30]] },
];

const r3 = (v: number): number => Math.round(v * 1000) / 1000;

/** One window's number for a series: gauge/rate/ratio value, or a histogram's mean observation. */
function valueOf(w: ScrapeWindow, id: SeriesId): { num: number; den: number } | null {
  const v = w.values[id];
  if (!v) return null;
  if (v.kind === 'histogram') return v.hist.count > 0 ? { num: v.hist.sum, den: v.hist.count } : null;
  if (v.kind === 'ratio') return v.den > 0 ? { num: v.num, den: v.den } : null;
  if (v.kind === 'rate') {
    const dt = (w.end_ms - w.start_ms) / 1000;
    return dt > 0 ? { num: v.delta, den: dt } : null;
  }
  return v.value === null ? null : { num: v.value, den: 1 };
}

/** Server rows per report window: per endpoint Σnum/Σden over its windows in it, then added (counts) or averaged (ratios). */
export function serverTimelineRows(snapshots: readonly Snapshot[], windowS: number, firstOrder: number): TimelineRow[] {
  const windows = windowsOf(snapshots);
  const widthMs = windowS * 1000;
  const rows: TimelineRow[] = [];
  let order = firstOrder;
  for (const def of SERVER_PANELS) {
    let any = false;
    for (const [id, name, scale] of def.lines) {
      // bucket → source → [Σnum, Σden]
      const buckets = new Map<number, Map<number, [number, number]>>();
      for (const w of windows) {
        const v = valueOf(w, id);
        if (!v) continue;
        const b = Math.floor((w.start_ms + w.end_ms) / 2 / widthMs);
        if (b < 0) continue;
        let bySource = buckets.get(b);
        if (!bySource) buckets.set(b, (bySource = new Map()));
        const acc = bySource.get(w.source) ?? [0, 0];
        // Gauges: mean of the scrapes in the window; the others weighted by their denominators.
        bySource.set(w.source, [acc[0] + v.num, acc[1] + v.den]);
      }
      const averages = def.panel.includes('(%)') || id.endsWith('_time_s');
      for (const [b, bySource] of [...buckets].sort((x, y) => x[0] - y[0])) {
        const per = [...bySource.values()].map(([n, d]) => n / d);
        const v = averages ? per.reduce((a, x) => a + x, 0) / per.length : per.reduce((a, x) => a + x, 0);
        rows.push({ t: r3(b * windowS), panel: def.panel, order, series: name, value: r3(v * scale) });
        any = true;
      }
    }
    if (any) order++;
  }
  return rows;
}

/** The client's rows: TTFT and TPOT p50/p99 per window, with their SLO thresholds as rules. */
export function clientTimelineRows(points: readonly SeriesPoint[], rules: readonly SloRule[]): TimelineRow[] {
  const rows: TimelineRow[] = [];
  const panels: Array<[string, 'ttft' | 'tpot', string]> = [
    ['client: TTFT (ms)', 'ttft', 'ttft_ms'],
    ['client: TPOT (ms)', 'tpot', 'tpot_ms'],
  ];
  panels.forEach(([panel, key, metric], order) => {
    for (const p of points) {
      for (const q of ['p50', 'p99'] as const) {
        const v = p[`${key}_${q}`];
        if (v !== null) rows.push({ t: p.t, panel, order, series: `${key.toUpperCase()} ${q}`, value: v });
      }
    }
    for (const r of rules) if (r.metric === metric) rows.push({ t: 0, panel, order, series: r.label, value: null, rule: r.value });
  });
  return rows;
}

export function timelineRows(points: readonly SeriesPoint[], windowS: number, rules: readonly SloRule[], snapshots: readonly Snapshot[]): TimelineRow[] {
  return [...clientTimelineRows(points, rules), ...serverTimelineRows(snapshots, windowS, 2)];
}
