/**
 * Snapshots → windows and summaries. Between two consecutive scrapes of one source: a gauge is
 * its value at the later scrape, a counter becomes a rate (Δ / Δt), a ratio of counters becomes
 * Δnum / Δden, and a histogram becomes the distribution of the observations made in between
 * (Δ of every cumulative bucket). A counter that goes down is a reset (the server restarted):
 * the window counts from zero, as Prometheus's rate() does, and the reset is counted.
 * Pure functions: no clock, no I/O.
 */
import type { SeriesId } from './engines.js';
import { SERIES, SERIES_IDS } from './engines.js';
import type { HistogramValue, RawValue, Snapshot } from './snapshot.js';

/**
 * The q-quantile of a cumulative histogram, as Prometheus's histogram_quantile() computes it:
 * linear interpolation inside the bucket holding rank q × total, the first bucket starting at 0,
 * and the highest finite bound when the rank falls in the +Inf bucket. null for no observations.
 */
export function histogramQuantile(q: number, h: HistogramValue): number | null {
  const n = h.counts.length;
  const total = n > 0 ? (h.counts[n - 1] as number) : 0;
  if (total <= 0) return null;
  const rank = q * total;
  let i = 0;
  while (i < n && (h.counts[i] as number) < rank) i++;
  if (i >= n) i = n - 1;
  const upper = h.le[i] as number;
  if (upper === Infinity) return i > 0 ? (h.le[i - 1] as number) : null;
  const lower = i > 0 ? (h.le[i - 1] as number) : 0;
  const below = i > 0 ? (h.counts[i - 1] as number) : 0;
  const inBucket = (h.counts[i] as number) - below;
  if (inBucket <= 0) return upper;
  return lower + (upper - lower) * ((rank - below) / inBucket);
}

/** later − earlier, bucket by bucket; the later histogram alone when it reset or changed bounds. */
export function histogramDelta(earlier: HistogramValue, later: HistogramValue): { delta: HistogramValue; reset: boolean } {
  const sameBounds = earlier.le.length === later.le.length && earlier.le.every((x, i) => x === later.le[i]);
  if (!sameBounds || later.count < earlier.count) return { delta: later, reset: sameBounds };
  return {
    delta: { le: later.le, counts: later.counts.map((c, i) => c - (earlier.counts[i] as number)), sum: later.sum - earlier.sum, count: later.count - earlier.count },
    reset: false,
  };
}

/** a + b, bucket by bucket (a fresh copy of b when a is null); a histogram with other bounds than a is left out. */
export function addHistogram(a: HistogramValue | null, b: HistogramValue): HistogramValue {
  if (a === null) return { le: [...b.le], counts: [...b.counts], sum: b.sum, count: b.count };
  if (a.le.length !== b.le.length || a.le.some((x, i) => x !== b.le[i])) return a; // incompatible bounds: keep the first
  return { le: a.le, counts: a.counts.map((c, i) => c + (b.counts[i] as number)), sum: a.sum + b.sum, count: a.count + b.count };
}

/** One window's value of one series. Histograms carry their delta; the rest a number (null: undefined here, e.g. 0/0). */
export type WindowValue =
  | { kind: 'number'; value: number | null }
  | { kind: 'rate'; delta: number; value: number | null }
  | { kind: 'ratio'; num: number; den: number; value: number | null }
  | { kind: 'histogram'; hist: HistogramValue };

/** One source's values between two consecutive scrapes. */
export interface ScrapeWindow {
  source: number;
  start_ms: number;
  end_ms: number;
  values: Partial<Record<SeriesId, WindowValue>>;
  /** Counters that went down in this window. */
  resets: number;
}

function windowValue(prev: RawValue | undefined, cur: RawValue, dtS: number): { value: WindowValue; reset: boolean } | null {
  if (cur.kind === 'gauge') return { value: { kind: 'number', value: cur.value }, reset: false };
  if (!prev || prev.kind !== cur.kind) return null;
  if (cur.kind === 'counter' && prev.kind === 'counter') {
    const reset = cur.value < prev.value;
    const d = reset ? cur.value : cur.value - prev.value;
    return { value: { kind: 'rate', delta: d, value: dtS > 0 ? d / dtS : null }, reset };
  }
  if (cur.kind === 'ratio' && prev.kind === 'ratio') {
    const reset = cur.den < prev.den || cur.num < prev.num;
    const dn = reset ? cur.num : cur.num - prev.num;
    const dd = reset ? cur.den : cur.den - prev.den;
    return { value: { kind: 'ratio', num: dn, den: dd, value: dd > 0 ? dn / dd : null }, reset };
  }
  if (cur.kind === 'histogram' && prev.kind === 'histogram') {
    const { delta, reset } = histogramDelta(prev.hist, cur.hist);
    return { value: { kind: 'histogram', hist: delta }, reset };
  }
  return null;
}

/** Windows between consecutive snapshots of each source, in time order per source. */
export function windowsOf(snapshots: readonly Snapshot[]): ScrapeWindow[] {
  const bySource = new Map<number, Snapshot[]>();
  for (const s of snapshots) {
    let list = bySource.get(s.source);
    if (!list) bySource.set(s.source, (list = []));
    list.push(s);
  }
  const out: ScrapeWindow[] = [];
  for (const [source, list] of bySource) {
    list.sort((a, b) => a.t_ms - b.t_ms);
    for (let i = 1; i < list.length; i++) {
      const a = list[i - 1] as Snapshot;
      const b = list[i] as Snapshot;
      const dtS = (b.t_ms - a.t_ms) / 1000;
      const w: ScrapeWindow = { source, start_ms: a.t_ms, end_ms: b.t_ms, values: {}, resets: 0 };
      for (const id of SERIES_IDS) {
        const cur = b.values[id];
        if (!cur) continue;
        const r = windowValue(a.values[id], cur, dtS);
        if (!r) continue;
        w.values[id] = r.value;
        if (r.reset) w.resets++;
      }
      const restarted = a.process_start_s !== undefined && b.process_start_s !== undefined && b.process_start_s !== a.process_start_s;
      if (restarted && w.resets === 0) w.resets = 1;
      out.push(w);
    }
  }
  return out;
}

export interface SeriesSummary {
  /** Gauges: mean over scrapes; rates: mean rate over the span; ratios: ΣΔnum/ΣΔden; histograms: mean observation. */
  mean: number | null;
  /** Gauges: the largest value scraped. */
  max?: number;
  /** Counters: the total counted over the span. */
  total?: number;
  p50?: number | null;
  p90?: number | null;
  p99?: number | null;
  /** Histograms: observations in the span. */
  count?: number;
}

/** Ratios and per-GPU means average across sources; counts and rates add up. */
function combinesByMean(id: SeriesId): boolean {
  return SERIES[id].unit === 'ratio';
}

/**
 * Summary of the windows that end within [fromMs, toMs] (the run's measured span). Per source
 * first, then across sources: replicas' gauges of counts and rates add, ratios average,
 * histograms merge.
 */
export function summarizeSeries(windows: readonly ScrapeWindow[], fromMs = -Infinity, toMs = Infinity): Partial<Record<SeriesId, SeriesSummary>> {
  const inSpan = windows.filter((w) => w.end_ms > fromMs && w.start_ms < toMs);
  const sources = [...new Set(inSpan.map((w) => w.source))];
  const out: Partial<Record<SeriesId, SeriesSummary>> = {};
  for (const id of SERIES_IDS) {
    const kind = SERIES[id].kind;
    const perSource: SeriesSummary[] = [];
    let merged: HistogramValue | null = null;
    for (const src of sources) {
      const ws = inSpan.filter((w) => w.source === src && w.values[id] !== undefined);
      if (ws.length === 0) continue;
      if (kind === 'histogram') {
        for (const w of ws) {
          const v = w.values[id];
          if (v?.kind === 'histogram') merged = addHistogram(merged, v.hist);
        }
        continue;
      }
      const nums = ws.map((w) => (w.values[id] as { value: number | null }).value);
      if (kind === 'gauge') {
        const vals = nums.filter((x): x is number => x !== null);
        if (vals.length) perSource.push({ mean: vals.reduce((a, b) => a + b, 0) / vals.length, max: Math.max(...vals) });
      } else if (kind === 'rate') {
        // Σ of the counter's own deltas, so a total is exactly what the server counted.
        const span = ws.reduce((a, w) => a + (w.end_ms - w.start_ms) / 1000, 0);
        const total = ws.reduce((a, w) => a + (w.values[id]?.kind === 'rate' ? (w.values[id] as { delta: number }).delta : 0), 0);
        perSource.push({ mean: span > 0 ? total / span : null, total });
      } else {
        // A ratio of counters over the span is ΣΔnum / ΣΔden; an engine's own ratio gauge is averaged.
        let num = 0;
        let den = 0;
        let parts = false;
        for (const w of ws) {
          const v = w.values[id];
          if (v?.kind === 'ratio') {
            parts = true;
            num += v.num;
            den += v.den;
          }
        }
        const vals = nums.filter((x): x is number => x !== null);
        perSource.push({ mean: parts ? (den > 0 ? num / den : null) : vals.length ? vals.reduce((a, b) => a + b, 0) / vals.length : null });
      }
    }
    if (kind === 'histogram') {
      if (merged && merged.count > 0)
        out[id] = { mean: merged.sum / merged.count, p50: histogramQuantile(0.5, merged), p90: histogramQuantile(0.9, merged), p99: histogramQuantile(0.99, merged), count: merged.count };
      continue;
    }
    if (perSource.length === 0) continue;
    const means = perSource.map((s) => s.mean).filter((x): x is number => x !== null);
    const mean = means.length === 0 ? null : combinesByMean(id) ? means.reduce((a, b) => a + b, 0) / means.length : means.reduce((a, b) => a + b, 0);
    const s: SeriesSummary = { mean };
    const maxes = perSource.map((p) => p.max).filter((x): x is number => x !== undefined);
    if (maxes.length) s.max = combinesByMean(id) ? Math.max(...maxes) : maxes.reduce((a, b) => a + b, 0);
    const totals = perSource.map((p) => p.total).filter((x): x is number => x !== undefined);
    if (totals.length) s.total = totals.reduce((a, b) => a + b, 0);
    out[id] = s;
  }
  return out;
}
