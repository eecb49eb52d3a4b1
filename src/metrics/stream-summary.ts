/**
 * Exact summary statistics of a pooled metric without materializing its values.
 *
 * ITL pools every gap of every request: 100,000 requests × 500 tokens is 50 M doubles (400 MB)
 * if copied into one array to sort. Instead the values are visited two or three times from the records:
 *
 *   pass 1: count, sum, min, max, and a histogram of the values' top 20 order-preserving bits
 *           (2^20 buckets, 4 MiB) — enough to know which bucket holds every wanted rank;
 *   pass 2: the squared deviations (two-pass variance, as `summarize`), the range of each
 *           wanted bucket and, for a wanted bucket of at most 2^20 values, its values;
 *   pass 3: the values of only those larger buckets whose values differ, into exact-size arrays
 *           (usually none: ITL is read in two passes).
 * A wanted bucket's values are sorted to read the exact order statistics. The wanted ranks are
 * those of REPORTED_PERCENTILES and of any further percentiles asked for (`--metric-percentiles`),
 * found the same way: each asked-for percentile is exact too, not read off the histogram.
 *
 * Percentiles are therefore exactly those of `summarize` (same ranks, same interpolation);
 * the mean may differ from it in the last bit, since the sum is taken in visit order. A batch
 * may carry weights (a value standing for several equal values, chunk-gaps.ts): the same
 * multiset, so the same count, extremes and percentiles; the sum adds value × weight.
 */
import { emptyDistribution, interpolate, percentileWord, REPORTED_PERCENTILES, type Distribution } from './stats.js';

interface Gathered {
  /** Values in lower buckets. */
  before: number;
  count: number;
  min: number;
  max: number;
  /** This bucket's values, sorted; null when they are all equal (= min). */
  values: Float64Array | null;
  at: number;
}

/** Calls `emit` once per value; must visit the same values in the same order every time. */
export type Visitor = (emit: (value: number) => void) => void;
/**
 * Calls `emit` with the values in batches (the first `n` of `values`, read during the call):
 * the same values in the same order every time. A batch per record costs one call, not one per
 * value, on the passes over tens of millions of ITL gaps.
 */
export type BatchVisitor = (emit: (values: Float64Array, n: number, weights?: Float64Array | null) => void) => void;

const BUCKET_BITS = 20;
/** Values of a wanted bucket gathered already in pass 2 (8 MiB of doubles each, at most 2 buckets per percentile). */
const GATHER_IN_PASS_2 = 1 << 20;
const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
// Which 32-bit half of a float64 holds the sign and exponent depends on byte order.
const HI = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1 ? 1 : 0;

/** Bucket of a double such that a < b ⇒ bucket(a) ≤ bucket(b) (IEEE-754 bit order, sign folded). */
function bucketOf(v: number): number {
  f64[0] = v;
  const hi = u32[HI]!;
  const key = hi & 0x8000_0000 ? ~hi >>> 0 : (hi | 0x8000_0000) >>> 0;
  return key >>> (32 - BUCKET_BITS);
}

// The passes' loops are module functions over explicit state, not closures writing captured
// variables: V8 compiles them far better, and they run over tens of millions of ITL gaps.

/** Pass 1's running figures: count, sum (in visit order), extremes and the bucket histogram. */
interface Pass1 {
  n: number;
  sum: number;
  min: number;
  max: number;
  hist: Uint32Array;
}

function pass1(st: Pass1, xs: Float64Array, k: number, ws: Float64Array | null | undefined): void {
  const hist = st.hist;
  let s = st.sum;
  let lo = st.min;
  let hi = st.max;
  if (ws) {
    let n = st.n;
    for (let i = 0; i < k; i++) {
      const v = xs[i]!;
      const w = ws[i]!;
      n += w;
      s += v * w;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
      hist[bucketOf(v)]! += w;
    }
    st.n = n;
  } else {
    st.n += k;
    for (let i = 0; i < k; i++) {
      const v = xs[i]!;
      s += v;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
      hist[bucketOf(v)]!++;
    }
  }
  st.sum = s;
  st.min = lo;
  st.max = hi;
}

/** Pass 2's state: the squared deviations' sum (in visit order) and the wanted buckets by slot. */
interface Pass2 {
  mean: number;
  sq: number;
  slot: Int32Array;
  gathered: Gathered[];
}

function pass2(st: Pass2, xs: Float64Array, m: number, ws: Float64Array | null | undefined): void {
  const { mean, slot, gathered } = st;
  let q = st.sq;
  for (let i = 0; i < m; i++) {
    const v = xs[i]!;
    const d = v - mean;
    q += ws ? d * d * ws[i]! : d * d;
    const k = slot[bucketOf(v)]!;
    if (k >= 0) {
      const w = gathered[k]!;
      if (v < w.min) w.min = v;
      if (v > w.max) w.max = v;
      if (w.values) {
        if (ws) w.values.fill(v, w.at, (w.at += ws[i]!));
        else w.values[w.at++] = v;
      }
    }
  }
  st.sq = q;
}

/** Pass 3: the values of the buckets marked `late`, into their arrays. */
function pass3(slot: Int32Array, late: Uint8Array, gathered: Gathered[], xs: Float64Array, m: number, ws: Float64Array | null | undefined): void {
  for (let i = 0; i < m; i++) {
    const v = xs[i]!;
    const k = slot[bucketOf(v)]!;
    if (k < 0 || !late[k]) continue;
    const w = gathered[k]!;
    if (ws) w.values!.fill(v, w.at, (w.at += ws[i]!));
    else w.values![w.at++] = v;
  }
}

export function summarizeVisited(visit: Visitor, wanted: readonly number[] = []): Distribution {
  const one = new Float64Array(1);
  return summarizeBatches(
    (emit) =>
      visit((v) => {
        one[0] = v;
        emit(one, 1);
      }),
    GATHER_IN_PASS_2,
    wanted,
  );
}

/**
 * summarizeVisited over values given in batches: the same figures, bit for bit. `gatherInPass2`:
 * the largest wanted bucket gathered in pass 2 (tests set 0 to take pass 3 for every bucket).
 * `asked`: further percentiles (0 < p < 100) for the Distribution's `percentiles`.
 */
export function summarizeBatches(visit: BatchVisitor, gatherInPass2 = GATHER_IN_PASS_2, asked: readonly number[] = []): Distribution {
  const one: Pass1 = { n: 0, sum: 0, min: Infinity, max: -Infinity, hist: new Uint32Array(1 << BUCKET_BITS) };
  visit((xs, k, ws) => pass1(one, xs, k, ws));
  const { n, sum, min, max, hist } = one;
  if (n === 0) return emptyDistribution(asked);
  const mean = Math.min(Math.max(sum / n, min), max);

  // Ranks whose values the percentiles need: ⌊h⌋ and ⌊h⌋+1 for h = (n−1)·p/100.
  const ranks: number[] = [];
  const every = [...REPORTED_PERCENTILES.map(([p]) => p), ...asked];
  for (const p of every) {
    const h = (n - 1) * (p / 100);
    ranks.push(Math.floor(h), Math.min(Math.floor(h) + 1, n - 1));
  }
  // For each wanted bucket: how many values lie in lower buckets, and how many it holds. The
  // passes below look a value's bucket up per value: a typed slot table, not a Map.
  const wanted = new Map<number, Gathered>();
  const slot = new Int32Array(1 << BUCKET_BITS).fill(-1);
  const gathered: Gathered[] = [];
  const sortedRanks = [...new Set(ranks)].sort((a, b) => a - b);
  let cum = 0;
  let r = 0;
  for (let b = 0; b < hist.length && r < sortedRanks.length; b++) {
    const c = hist[b]!;
    if (c === 0) continue;
    while (r < sortedRanks.length && sortedRanks[r]! < cum + c) {
      if (!wanted.has(b)) {
        const g: Gathered = { before: cum, count: c, min: Infinity, max: -Infinity, values: null, at: 0 };
        wanted.set(b, g);
        slot[b] = gathered.length;
        gathered.push(g);
      }
      r++;
    }
    cum += c;
  }

  // pass 2: variance, and each wanted bucket's range — a bucket of equal values (e.g. the
  // zero gaps of chunks read together) needs no gathering at all. A wanted bucket of at most
  // gatherInPass2 values is gathered here too (its array dropped if its values are all
  // equal), so pass 3 runs only for a larger bucket of distinct values.
  for (const w of gathered) if (w.count <= gatherInPass2) w.values = new Float64Array(w.count);
  const two: Pass2 = { mean, sq: 0, slot, gathered };
  visit((xs, m, ws) => pass2(two, xs, m, ws));
  const sq = two.sq;
  for (const w of gathered) {
    if (w.values && w.min === w.max) w.values = null;
    else if (w.values) w.values.sort();
  }
  // pass 3 (only if a bucket too large for pass 2 has distinct values): gather them into exact-size arrays.
  const toGather = [...wanted.values()].filter((w) => w.min !== w.max && !w.values);
  if (toGather.length > 0) {
    const late = new Uint8Array(gathered.length);
    for (const w of toGather) {
      w.values = new Float64Array(w.count);
      late[gathered.indexOf(w)] = 1;
    }
    visit((xs, m, ws) => pass3(slot, late, gathered, xs, m, ws));
    for (const w of toGather) w.values!.sort();
  }
  const byRank = (rank: number): number => {
    for (const w of wanted.values()) {
      const i = rank - w.before;
      if (i >= 0 && i < w.count) return w.values ? w.values[i]! : w.min;
    }
    throw new Error(`rank ${rank} not gathered`);
  };

  // Same float steps as `percentile` (numpy's _lerp), on the same order statistics.
  const at = (p: number): number => {
    const h = (n - 1) * (p / 100);
    const lo = Math.floor(h);
    const t = h - lo;
    return interpolate(byRank(lo), byRank(Math.min(lo + 1, n - 1)), t);
  };
  const d: Distribution = { count: n, mean, std: Math.sqrt(sq / n), min, max, p50: null, p90: null, p95: null, p99: null, p99_9: null };
  for (const [p, key] of REPORTED_PERCENTILES) d[key] = at(p);
  if (asked.length > 0) {
    d.percentiles = {};
    for (const p of asked) d.percentiles[percentileWord(p)] = at(p);
  }
  return d;
}
