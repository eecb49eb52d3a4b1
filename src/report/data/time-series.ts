/**
 * Time series of a run for the report, one point per window (data/windows.ts), over every
 * record of every phase (warmup and cooldown show as what they were). Which time places a
 * request in a window:
 *   completions, failures, TPOT, SLO attainment → end_ms;  TTFT → first_token_ms;
 *   output tokens → each chunk's time (output_tokens spread over the chunks, as the peaks are);
 *   in flight → time-averaged over [sent_ms, end_ms);  send lag → sent_ms.
 */
import { addChunkTokens, isGood, kept, meetsSlo, percentile, SLO_METRICS, type Slo, type TokenSpread } from '../../metrics/index.js';
import type { ErrorClass, RequestRecord } from '../../record/record.js';
import { makeWindows, type Windows } from './windows.js';

export interface SeriesPoint {
  /** Window start, s from the run's t = 0. */
  t: number;
  completed_per_s: number;
  failed_per_s: number;
  output_tokens_per_s: number;
  /** Mean requests in flight over the window. */
  in_flight: number;
  ttft_p50: number | null;
  ttft_p90: number | null;
  ttft_p99: number | null;
  tpot_p50: number | null;
  tpot_p90: number | null;
  tpot_p99: number | null;
  /** Requests the schedule wanted sent by the window's end, and those actually sent (cumulative). */
  scheduled: number;
  sent: number;
  lag_p50: number | null;
  lag_p99: number | null;
  lag_max: number | null;
}

export interface RunSeries {
  window_s: number;
  points: SeriesPoint[];
  /** Failed requests per window and class (only non-zero counts). */
  errors: Array<{ t: number; error_class: ErrorClass; count: number }>;
  /** Fraction of the requests ending in a window that met each SLO and all of them (null without SLOs). */
  slo: Array<{ t: number; objective: string; attained: number; requests: number }> | null;
}

const TPOT = SLO_METRICS.tpot_ms;
const r3 = (v: number): number => Math.round(v * 1000) / 1000;

function pct(values: ArrayLike<number>, p: number): number | null {
  if (values.length === 0) return null;
  return r3(percentile(values, p));
}

/**
 * Each window's values of one per-request quantity, sorted, as slices of one buffer: `windowOf`
 * gives a record's window (−1: it has no value), `value` its value. Counted, then placed
 * (a counting sort by window), so a long run's values take one typed buffer (`buf`, ≥ the
 * record count, reused for the next quantity) instead of a growing array per window. Equal values
 * being interchangeable, each slice sorts to what sorting that window's values alone gives.
 */
function valuesByWindow(
  records: readonly RequestRecord[],
  n: number,
  windowOf: (r: RequestRecord) => number,
  value: (r: RequestRecord) => number,
  buf: Float64Array,
): (i: number) => Float64Array {
  const start = new Int32Array(n + 1);
  for (const r of records) {
    const i = windowOf(r);
    if (i >= 0) start[i + 1]!++;
  }
  for (let i = 0; i < n; i++) start[i + 1]! += start[i]!;
  const at = start.slice(0, n);
  for (const r of records) {
    const i = windowOf(r);
    if (i >= 0) buf[at[i]!++] = value(r);
  }
  for (let i = 0; i < n; i++) buf.subarray(start[i]!, start[i + 1]!).sort();
  return (i) => buf.subarray(start[i]!, start[i + 1]!);
}

/** The p-th percentiles (each of `ps`) of every window's values: ps.length arrays of n. */
function windowPercentiles(of: (i: number) => Float64Array, n: number, ps: readonly number[]): Array<Array<number | null>> {
  const out = ps.map(() => new Array<number | null>(n));
  for (let i = 0; i < n; i++) {
    const v = of(i);
    ps.forEach((p, k) => (out[k]![i] = pct(v, p)));
  }
  return out;
}

/** The series' windows: from t = 0 to the last end, send or schedule of any record. */
function seriesWindows(records: readonly RequestRecord[]): Windows {
  let endMs = 0;
  for (const r of records) endMs = Math.max(endMs, r.end_ms, r.sent_ms, r.scheduled_ms);
  return makeWindows(endMs);
}

/** The records whose output tokens the series spreads over their chunks' windows: any with output tokens. */
const producesTokens = (r: RequestRecord): boolean => r.output_tokens > 0;

/**
 * runSeries' output tokens per window, empty: for a pass that reads every record's chunks anyway
 * to spread them (runDistributions' ITL), then to give to runSeries, which then does not.
 */
export function seriesTokens(records: readonly RequestRecord[]): TokenSpread {
  const w = seriesWindows(records);
  return { take: producesTokens, bucketOf: (t) => w.of(t), into: new Float64Array(w.count) };
}

/** `spread`: seriesTokens(records) already filled (addChunkTokens of its records); else spread here. */
export function runSeries(records: readonly RequestRecord[], slos: readonly Slo[], spread?: TokenSpread): RunSeries {
  const w = seriesWindows(records);
  const n = w.count;
  const widthMs = w.width_s * 1000;
  const completed = new Float64Array(n);
  const failed = new Float64Array(n);
  const tokens = spread?.into ?? new Float64Array(n);
  const busyMs = new Float64Array(n);
  const scheduled = new Float64Array(n);
  const sent = new Float64Array(n);
  const errors = new Map<string, number>();
  const sloNames = slos.map((s) => `${SLO_METRICS[s.metric].label} ≤ ${s.threshold_ms} ms`);
  const sloGood = slos.length ? Array.from({ length: slos.length + 1 }, () => new Float64Array(n)) : [];
  const sloTotal = new Float64Array(n);

  for (const r of records) {
    const e = w.of(r.end_ms);
    scheduled[w.of(r.scheduled_ms)]! += 1;
    sent[w.of(r.sent_ms)]! += 1;
    // Time in flight, split over the windows it covers.
    for (let i = w.of(r.sent_ms); i <= e; i++) {
      const a = Math.max(r.sent_ms, i * widthMs);
      const b = Math.min(r.end_ms, (i + 1) * widthMs);
      if (b > a) busyMs[i]! += b - a;
    }
    if (r.status === 'ok') {
      completed[e]! += 1;
    } else {
      failed[e]! += 1;
      const key = `${e}\u0000${r.error_class ?? r.status}`;
      errors.set(key, (errors.get(key) ?? 0) + 1);
    }
    if (slos.length && r.phase === 'measure') {
      sloTotal[e]! += 1;
      slos.forEach((s, k) => {
        if (r.status === 'ok' && meetsSlo(r, s)) sloGood[k]![e]! += 1;
      });
      if (isGood(r, slos)) sloGood[slos.length]![e]! += 1;
    }
  }

  // Records with output tokens, spread over their chunks' windows.
  if (!spread) addChunkTokens(kept(records, producesTokens), (t) => w.of(t), tokens);
  // The per-window percentiles: one quantity at a time through one buffer.
  const buf = new Float64Array(records.length);
  const tpotOf = (r: RequestRecord): number | null => (r.status === 'ok' && TPOT.kind === 'request' ? TPOT.value(r) : null);
  const [ttft50, ttft90, ttft99] = windowPercentiles(
    valuesByWindow(records, n, (r) => (r.status === 'ok' && r.first_token_ms !== null ? w.of(r.first_token_ms) : -1), (r) => r.first_token_ms! - r.sent_ms, buf),
    n,
    [50, 90, 99],
  ) as [Array<number | null>, Array<number | null>, Array<number | null>];
  const [tpot50, tpot90, tpot99] = windowPercentiles(
    valuesByWindow(records, n, (r) => (tpotOf(r) !== null ? w.of(r.end_ms) : -1), (r) => tpotOf(r)!, buf),
    n,
    [50, 90, 99],
  ) as [Array<number | null>, Array<number | null>, Array<number | null>];
  const [lag50, lag99, lagMax] = windowPercentiles(
    valuesByWindow(records, n, (r) => w.of(r.sent_ms), (r) => r.sent_ms - r.scheduled_ms, buf),
    n,
    [50, 99, 100],
  ) as [Array<number | null>, Array<number | null>, Array<number | null>];
  const points: SeriesPoint[] = [];
  let cumScheduled = 0;
  let cumSent = 0;
  for (let i = 0; i < n; i++) {
    cumScheduled += scheduled[i]!;
    cumSent += sent[i]!;
    const t = r3(i * w.width_s);
    points.push({
      t,
      completed_per_s: r3(completed[i]! / w.width_s),
      failed_per_s: r3(failed[i]! / w.width_s),
      output_tokens_per_s: r3(tokens[i]! / w.width_s),
      in_flight: r3(busyMs[i]! / widthMs),
      ttft_p50: ttft50[i]!,
      ttft_p90: ttft90[i]!,
      ttft_p99: ttft99[i]!,
      tpot_p50: tpot50[i]!,
      tpot_p90: tpot90[i]!,
      tpot_p99: tpot99[i]!,
      scheduled: cumScheduled,
      sent: cumSent,
      lag_p50: lag50[i]!,
      lag_p99: lag99[i]!,
      lag_max: lagMax[i]!,
    });
  }
  const errorPoints = [...errors].map(([key, count]) => {
    const [i, cls] = key.split('\u0000') as [string, ErrorClass];
    return { t: r3(Number(i) * w.width_s), error_class: cls, count };
  });
  let slo: RunSeries['slo'] = null;
  if (slos.length) {
    slo = [];
    const names = [...sloNames, 'all SLOs (goodput)'];
    for (let i = 0; i < n; i++) {
      if (sloTotal[i] === 0) continue;
      names.forEach((objective, k) => slo!.push({ t: r3(i * w.width_s), objective, attained: r3(sloGood[k]![i]! / sloTotal[i]!), requests: sloTotal[i]! }));
    }
  }
  return { window_s: w.width_s, points, errors: errorPoints, slo };
}
