/**
 * Binning a latency distribution for the report: a fixed number of bins whatever the number
 * of values (a run's pooled ITL can hold tens of millions), so the page's size does not grow
 * with the run. Two passes over a value source; nothing is copied.
 *
 * Scale: logarithmic when the positive values span ≥ 10× (a long tail); values ≤ 0 (ITL gaps
 * of chunks read in one turn) are then counted apart as `at_or_below_zero` and start the CDF.
 * Linear otherwise.
 */

/** Calls `emit` once per value, or `emitMany` once for `weight` equal values (the same each time). */
export type ValueSource = (emit: (v: number) => void, emitMany: (v: number, weight: number) => void) => void;

export interface BinnedDistribution {
  count: number;
  scale: 'log' | 'linear';
  /** Values ≤ 0 on a log scale (not in any bin); 0 on a linear scale. */
  at_or_below_zero: number;
  /** Histogram bins (coarse): [lo, hi) with the count in each; the last bin includes hi. */
  bins: Array<{ lo: number; hi: number; count: number }>;
  /** Empirical CDF at the upper edge of each fine bin: fraction of all values ≤ x. */
  cdf: Array<{ x: number; p: number }>;
}

export interface BinOptions {
  /** Fine bins behind the CDF (default 200). */
  fine?: number;
  /** Fine bins merged into one histogram bin (default 5: 40 histogram bins). */
  merge?: number;
}

const round = (v: number): number => Number(v.toPrecision(6));

export function binDistribution(source: ValueSource, opts: BinOptions = {}): BinnedDistribution {
  const fine = opts.fine ?? 200;
  const merge = opts.merge ?? 5;
  let count = 0;
  let min = Infinity;
  let max = -Infinity;
  let minPositive = Infinity;
  const see = (v: number, w: number): void => {
    if (Number.isNaN(v)) return;
    count += w;
    if (v < min) min = v;
    if (v > max) max = v;
    if (v > 0 && v < minPositive) minPositive = v;
  };
  source((v) => see(v, 1), see);
  if (count === 0) return { count: 0, scale: 'linear', at_or_below_zero: 0, bins: [], cdf: [] };

  const log = minPositive < Infinity && max / minPositive >= 10;
  const lo = log ? Math.log10(minPositive) : min;
  const hi = log ? Math.log10(max) : max;
  const span = hi - lo;
  const edge = (i: number): number => {
    const e = lo + (span * i) / fine;
    return log ? 10 ** e : e;
  };
  const counts = new Float64Array(fine);
  let belowZero = 0;
  const place = (v: number, w: number): void => {
    if (Number.isNaN(v)) return;
    if (log && v <= 0) {
      belowZero += w;
      return;
    }
    const pos = span === 0 ? 0 : ((log ? Math.log10(v) : v) - lo) / span;
    counts[Math.min(fine - 1, Math.max(0, Math.floor(pos * fine)))]! += w;
  };
  source((v) => place(v, 1), place);

  const bins: BinnedDistribution['bins'] = [];
  for (let i = 0; i < fine; i += merge) {
    let c = 0;
    for (let j = i; j < Math.min(fine, i + merge); j++) c += counts[j]!;
    bins.push({ lo: round(edge(i)), hi: round(edge(Math.min(fine, i + merge))), count: c });
  }
  const cdf: BinnedDistribution['cdf'] = [{ x: round(edge(0)), p: Number((belowZero / count).toFixed(6)) }];
  let cum = belowZero;
  for (let i = 0; i < fine; i++) {
    cum += counts[i]!;
    cdf.push({ x: round(edge(i + 1)), p: Number((cum / count).toFixed(6)) });
  }
  return { count, scale: log ? 'log' : 'linear', at_or_below_zero: log ? belowZero : 0, bins, cdf };
}
