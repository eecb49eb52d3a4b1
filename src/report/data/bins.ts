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

/**
 * Calls `emit` with the values in batches: the first `n` of `values`, each standing for
 * `weights[i]` equal values (null: 1 each); the same batches every time (chunk-gaps.ts'
 * WeightedVisitor is one). The passes then loop over a batch, not a call per value: the
 * report bins every ITL gap of a run twice.
 */
export type BatchSource = (emit: (values: Float64Array, n: number, weights: Float64Array | null) => void) => void;

const BATCH = 4096;

/** A value source as batches, in the same order. */
function batchesOf(source: ValueSource): BatchSource {
  return (emit) => {
    const values = new Float64Array(BATCH);
    const one = new Float64Array(1);
    let n = 0;
    source(
      (v) => {
        values[n++] = v;
        if (n === BATCH) {
          emit(values, n, null);
          n = 0;
        }
      },
      (v, w) => {
        if (n > 0) emit(values, n, null);
        n = 0;
        values[0] = v;
        one[0] = w;
        emit(values, 1, one);
      },
    );
    if (n > 0) emit(values, n, null);
  };
}

const MEMO_BITS = 16;
const hashF64 = new Float64Array(1);
const hashU32 = new Uint32Array(hashF64.buffer);

/**
 * The fine bin of a positive value on the log scale, `bin(Math.log10(v))`, remembered per value
 * in a direct-mapped table: a run's ITL gaps are tens of millions of values but far fewer
 * distinct ones (whole µs apart), and log10 costs more than the lookup. A slot holds the last
 * value hashed to it and that value's bin, so every answer is the computed one.
 */
class LogBins {
  private readonly values = new Float64Array(1 << MEMO_BITS).fill(Number.NaN);
  private readonly bins = new Int32Array(1 << MEMO_BITS);
  constructor(private readonly bin: (log10: number) => number) {}
  of(v: number): number {
    hashF64[0] = v;
    const h = Math.imul(hashU32[0]! ^ hashU32[1]!, 0x9e3779b1) >>> (32 - MEMO_BITS);
    if (this.values[h] === v) return this.bins[h]!;
    const b = this.bin(Math.log10(v));
    this.values[h] = v;
    this.bins[h] = b;
    return b;
  }
}

// The passes' loops over every value are module functions over explicit state, not closures
// writing captured variables (which V8 compiles far worse): the ITL gaps are tens of millions.

interface Range {
  count: number;
  min: number;
  max: number;
  minPositive: number;
}

function rangeOf(st: Range, xs: Float64Array, n: number, ws: Float64Array | null): void {
  let { count, min, max, minPositive } = st;
  for (let i = 0; i < n; i++) {
    const v = xs[i]!;
    if (Number.isNaN(v)) continue;
    count += ws ? ws[i]! : 1;
    if (v < min) min = v;
    if (v > max) max = v;
    if (v > 0 && v < minPositive) minPositive = v;
  }
  st.count = count;
  st.min = min;
  st.max = max;
  st.minPositive = minPositive;
}

/** Pass 2 on the log scale: values ≤ 0 counted apart (below.at), others in their fine bin. */
function countLog(memo: LogBins, counts: Float64Array, below: { at: number }, xs: Float64Array, n: number, ws: Float64Array | null): void {
  let zeros = below.at;
  for (let i = 0; i < n; i++) {
    const v = xs[i]!;
    if (Number.isNaN(v)) continue;
    const w = ws ? ws[i]! : 1;
    if (v <= 0) zeros += w;
    else counts[memo.of(v)]! += w;
  }
  below.at = zeros;
}

export function binDistribution(source: ValueSource, opts: BinOptions = {}): BinnedDistribution {
  return binBatches(batchesOf(source), opts);
}

/** binDistribution of values given in batches: the same figures. */
export function binBatches(source: BatchSource, opts: BinOptions = {}): BinnedDistribution {
  const fine = opts.fine ?? 200;
  const merge = opts.merge ?? 5;
  const range: Range = { count: 0, min: Infinity, max: -Infinity, minPositive: Infinity };
  source((xs, n, ws) => rangeOf(range, xs, n, ws));
  const { count, min, max, minPositive } = range;
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
  const fineBin = (x: number): number => {
    const pos = span === 0 ? 0 : (x - lo) / span;
    return Math.min(fine - 1, Math.max(0, Math.floor(pos * fine)));
  };
  const below = { at: 0 };
  if (log) {
    const memo = new LogBins(fineBin);
    source((xs, n, ws) => countLog(memo, counts, below, xs, n, ws));
  } else {
    source((xs, n, ws) => {
      for (let i = 0; i < n; i++) {
        const v = xs[i]!;
        if (Number.isNaN(v)) continue;
        counts[fineBin(v)]! += ws ? ws[i]! : 1;
      }
    });
  }
  const belowZero = below.at;

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
