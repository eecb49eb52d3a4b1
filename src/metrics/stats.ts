/**
 * Summary statistics, numpy-compatible. Pure; sized for millions of values (one Float64Array
 * copy and one numeric typed-array sort per summary).
 */

/**
 * Summary of one metric's values. `count` is always a number; every other field is null
 * when `count` is 0 (never NaN). Units are those of the summarized metric.
 */
export interface Distribution {
  count: number;
  mean: number | null;
  /** Population standard deviation: sqrt(Σ(x − mean)² / n), numpy's `np.std` default (ddof=0). */
  std: number | null;
  min: number | null;
  max: number | null;
  p50: number | null;
  p90: number | null;
  p95: number | null;
  p99: number | null;
  p99_9: number | null;
  /**
   * The percentiles asked for (`--metric-percentiles`), by the same rule as p50…p99_9, keyed by
   * `percentileWord` (vLLM's spelling: "25", "99.99"). Absent when none were asked for.
   */
  percentiles?: Record<string, number | null>;
}

/** The reported percentiles and the Distribution key each lands in. */
export const REPORTED_PERCENTILES = [
  [50, 'p50'],
  [90, 'p90'],
  [95, 'p95'],
  [99, 'p99'],
  [99.9, 'p99_9'],
] as const satisfies ReadonlyArray<readonly [number, keyof Distribution]>;

export type PercentileKey = (typeof REPORTED_PERCENTILES)[number][1];

// The one percentile and interpolation (numpy's), shared with the simulator's calibration.
import { percentile } from '../util/percentile.js';
export { interpolate, percentile } from '../util/percentile.js';

/**
 * A percentile as vLLM's benchmarks/serve.py spells it in keys and labels: `str(int(p)) if
 * int(p) == p else str(p)`, i.e. Python's float repr (25 → "25", 99.99 → "99.99",
 * 0.00005 → "5e-05": Python writes an exponent below 1e-4, with at least two digits).
 */
export function percentileWord(p: number): string {
  if (Number.isInteger(p)) return String(p);
  if (Math.abs(p) >= 1e-4) return String(p);
  const [mantissa, exp] = p.toExponential().split('e') as [string, string];
  const sign = exp.startsWith('-') ? '-' : '+';
  return `${mantissa}e${sign}${exp.replace(/^[+-]/, '').padStart(2, '0')}`;
}

/** The requested percentiles of sorted values, keyed by percentileWord (empty values: null each). */
export function requestedPercentiles(sorted: ArrayLike<number>, wanted: readonly number[]): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const p of wanted) out[percentileWord(p)] = sorted.length === 0 ? null : percentile(sorted, p);
  return out;
}

/** The all-null summary of zero values (with `percentiles`, all null, when some are wanted). */
export function emptyDistribution(wanted: readonly number[] = []): Distribution {
  const d: Distribution = {
    count: 0,
    mean: null,
    std: null,
    min: null,
    max: null,
    p50: null,
    p90: null,
    p95: null,
    p99: null,
    p99_9: null,
  };
  if (wanted.length > 0) d.percentiles = requestedPercentiles([], wanted);
  return d;
}

/**
 * Summarize values (not modified; copied once). NaN values are not allowed. `wanted`:
 * further percentiles (0 < p < 100) for `percentiles`.
 */
export function summarize(values: ArrayLike<number>, wanted: readonly number[] = []): Distribution {
  return summarizeOwned(Float64Array.from(values), wanted);
}

/**
 * Summarize a Float64Array the caller gives up: it is sorted in place. Used by `compute`
 * to avoid a second copy of large pooled arrays (e.g. every ITL gap of a run).
 */
export function summarizeOwned(values: Float64Array, wanted: readonly number[] = []): Distribution {
  const n = values.length;
  if (n === 0) return emptyDistribution(wanted);
  values.sort();
  let sum = 0;
  for (let i = 0; i < n; i++) sum += values[i]!;
  // Clamped: rounding of Σx/n may step just outside [min, max] (e.g. 3 × 0.1).
  const mean = Math.min(Math.max(sum / n, values[0]!), values[n - 1]!);
  // Two-pass variance: stable where Σx² − n·mean² would cancel catastrophically.
  let sq = 0;
  for (let i = 0; i < n; i++) {
    const d = values[i]! - mean;
    sq += d * d;
  }
  const d: Distribution = {
    count: n,
    mean,
    std: Math.sqrt(sq / n),
    min: values[0]!,
    max: values[n - 1]!,
    p50: null,
    p90: null,
    p95: null,
    p99: null,
    p99_9: null,
  };
  for (const [p, key] of REPORTED_PERCENTILES) d[key] = percentile(values, p);
  if (wanted.length > 0) d.percentiles = requestedPercentiles(values, wanted);
  return d;
}
