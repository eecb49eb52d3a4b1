/**
 * One scrape reduced to the raw values of the normalized series: gauges as read, counters and
 * histograms still cumulative (windows and rates come later, in series.ts). A snapshot is what
 * is stored per scrape in server-metrics.jsonl (docs/observe.md), so it stays small: a few dozen
 * numbers, not the whole exposition.
 */
import type { EngineMap, SeriesId, Source } from './engines.js';
import { detectEngines, SERIES_IDS } from './engines.js';
import type { Exposition, Sample } from './exposition.js';

/** Cumulative histogram: upper bounds ascending (+Inf last) and cumulative counts. */
export interface HistogramValue {
  le: number[];
  counts: number[];
  sum: number;
  count: number;
}

export type RawValue =
  | { kind: 'gauge'; value: number }
  | { kind: 'counter'; value: number }
  | { kind: 'ratio'; num: number; den: number }
  | { kind: 'histogram'; hist: HistogramValue };

export interface Snapshot {
  /** Milliseconds on the run clock (t = 0 at the run's start; negative before it). */
  t_ms: number;
  /** Index of the scraped endpoint in the run's list of metrics URLs. */
  source: number;
  engines: string[];
  values: Partial<Record<SeriesId, RawValue>>;
  /** process_start_time_seconds when the server exports it: a change means a restart. */
  process_start_s?: number;
}

function matches(s: Sample, where: Record<string, string> | undefined): boolean {
  if (!where) return true;
  for (const k of Object.keys(where)) if (s.labels[k] !== where[k]) return false;
  return true;
}

function byName(expo: Exposition): Map<string, Sample[]> {
  const m = new Map<string, Sample[]>();
  for (const s of expo.samples) {
    let list = m.get(s.name);
    if (!list) m.set(s.name, (list = []));
    list.push(s);
  }
  return m;
}

function readHistogram(samples: Map<string, Sample[]>, metric: string, where?: Record<string, string>): HistogramValue | null {
  const buckets = (samples.get(`${metric}_bucket`) ?? []).filter((s) => matches(s, where));
  if (buckets.length === 0) return null;
  // Label sets (models, engines) are merged bucket by bucket: counts add for equal bounds.
  const byLe = new Map<number, number>();
  for (const b of buckets) {
    const le = b.labels.le === undefined ? NaN : b.labels.le === '+Inf' ? Infinity : Number(b.labels.le);
    if (Number.isNaN(le)) continue;
    byLe.set(le, (byLe.get(le) ?? 0) + b.value);
  }
  const le = [...byLe.keys()].sort((a, b) => a - b);
  const total = (name: string): number => (samples.get(name) ?? []).filter((s) => matches(s, where)).reduce((a, s) => a + s.value, 0);
  return { le, counts: le.map((x) => byLe.get(x) as number), sum: total(`${metric}_sum`), count: total(`${metric}_count`) };
}

function readSource(samples: Map<string, Sample[]>, src: Source): RawValue | null {
  switch (src.kind) {
    case 'gauge': {
      const list = (samples.get(src.metric) ?? []).filter((s) => matches(s, src.where) && Number.isFinite(s.value));
      if (list.length === 0) return null;
      const vals = list.map((s) => s.value);
      const v = src.agg === 'sum' ? vals.reduce((a, b) => a + b, 0) : src.agg === 'max' ? Math.max(...vals) : vals.reduce((a, b) => a + b, 0) / vals.length;
      return { kind: 'gauge', value: v * (src.scale ?? 1) };
    }
    case 'gauge_ratio': {
      const list = samples.get(src.metric) ?? [];
      if (list.length === 0) return null;
      return { kind: 'gauge', value: list.reduce((a, s) => a + s.value, 0) / list.length };
    }
    case 'counter': {
      const list = (samples.get(src.metric) ?? []).filter((s) => matches(s, src.where));
      if (list.length === 0) return null;
      return { kind: 'counter', value: list.reduce((a, s) => a + s.value, 0) };
    }
    case 'ratio': {
      const num = samples.get(src.num);
      const den = samples.get(src.den);
      if (!num || !den) return null;
      return { kind: 'ratio', num: num.reduce((a, s) => a + s.value, 0), den: den.reduce((a, s) => a + s.value, 0) };
    }
    case 'histogram': {
      const hist = readHistogram(samples, src.metric, src.where);
      return hist ? { kind: 'histogram', hist } : null;
    }
    case 'histogram_sum': {
      const list = samples.get(`${src.metric}_sum`);
      if (!list) return null;
      return { kind: 'counter', value: list.reduce((a, s) => a + s.value, 0) };
    }
  }
}

/** Reduces a parsed scrape to a snapshot; `engines` pins the maps (else detected from the names). */
export function snapshotOf(expo: Exposition, t_ms: number, source: number, engines?: readonly EngineMap[]): Snapshot {
  const samples = byName(expo);
  const found = engines ?? detectEngines(new Set(samples.keys()));
  const values: Partial<Record<SeriesId, RawValue>> = {};
  for (const id of SERIES_IDS) {
    for (const e of found) {
      if (values[id]) break;
      for (const src of e.sources[id] ?? []) {
        const v = readSource(samples, src);
        if (v) {
          values[id] = v;
          break;
        }
      }
    }
  }
  const snap: Snapshot = { t_ms, source, engines: found.map((e) => e.id), values };
  const start = samples.get('process_start_time_seconds')?.[0]?.value;
  if (start !== undefined) snap.process_start_s = start;
  return snap;
}
