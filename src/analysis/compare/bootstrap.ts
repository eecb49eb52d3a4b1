/**
 * Bootstrap resampling of a run's key figures.
 *
 * Resampling unit: the request, in moving blocks (blockCounts). A resample draws requests with
 * replacement, block by block; each request then counts k_i times. Percentiles are
 * taken of the values of the drawn requests (ITL: of every gap of every drawn request), with
 * numpy's linear interpolation, through chunks of the values in ascending order (blockPercentiles):
 * the per-request figures sorted once, ITL's gaps cut into value buckets each sorted on first use
 * (valueBuckets) — the same ranks of the same multiset as one sort of everything.
 *
 * Throughputs (requests/s, tokens/s, goodput, cost per 1M tokens) are window totals divided by
 * the window: resampling requests inside a fixed window would hold them at the observed value
 * (every request is counted once on average, and the window does not move), so for them the unit
 * is the 1-second bucket of the measured window (each request's tokens and completion counted in
 * the bucket of its end): a resample draws the run's buckets with replacement.
 */
import type { RequestRecord } from '../../record/record.js';
import type { Rng } from '../../util/rng.js';
import { isGood, SLO_METRICS, type PooledMetricDef, type RequestMetricDef, type Slo } from '../../metrics/index.js';
import { perMillionTokens } from '../../metrics/cost.js';

const ttft = SLO_METRICS.ttft_ms as RequestMetricDef;
const tpot = SLO_METRICS.tpot_ms as RequestMetricDef;
const e2el = SLO_METRICS.e2el_ms as RequestMetricDef;
const itl = SLO_METRICS.itl_ms as PooledMetricDef;
import { LATENCY_KEYS, PERCENTILES, type FigureValues, type LatencyKey } from './key-figures.js';
import { sortWithOwners } from '../../util/argsort.js';

interface SortedValues {
  /**
   * The values in ascending order — or, with chunks.unsorted, grouped by chunk in ascending order
   * of chunk (every value of chunk c below every value of chunk c + 1), each chunk sorted when a
   * resample first needs it.
   */
  values: Float64Array;
  /** Index of the request each value belongs to. */
  owner: Int32Array;
  /**
   * The values cut into chunks (chunk c = positions start[c] … start[c + 1] − 1), with
   * `below[x × count + c]` = how many values of chunk c belong to requests before x (x = 0 … n):
   * a chunk's weight under a block resample is then two look-ups per block instead of one per
   * value (blockPercentiles). Absent when the plain scan is cheaper.
   */
  chunks?: {
    count: number;
    start: Int32Array;
    below: Int32Array;
    /** 1 for a chunk not sorted yet (valueBuckets); absent when every chunk is sorted. */
    unsorted?: Uint8Array;
  };
}

export interface RunSample {
  n: number;
  latency: Record<LatencyKey, SortedValues>;
  /** 1 where the request's status is 'error'. */
  error: Uint8Array;
  /** errorsBefore[x] = errors among requests 0 … x−1 (n + 1 counts): a block's errors in two look-ups. */
  errorsBefore: Int32Array;
  duration_s: number;
  /** Per 1-second bucket: ok completions, good completions, output tokens, input + output tokens. */
  buckets: { ok: Float64Array; good: Float64Array; output: Float64Array; total: Float64Array };
  /** Cost per second of the window (price × GPUs / 3600), when the run was costed. */
  cost_per_s: number | null;
}

/** The block length and count of blockCounts for n requests. */
function blockShape(n: number): { len: number; blocks: number } {
  const len = Math.ceil(Math.sqrt(n));
  return { len, blocks: len === 0 ? 0 : Math.ceil(n / len) };
}

/** The chunk index's size bound: (n + 1) × chunks counts (64 MiB). */
const MAX_CHUNK_COUNTS = 2 ** 24;

/**
 * The chunk size (log2) at which blockPercentiles costs least for v values and n requests, or
 * null when the plain scan (two passes over the values) is cheaper. Cost in element visits:
 * blocks × 2 × chunks look-ups, plus the chunks holding the wanted ranks scanned value by value.
 */
function chunkShift(v: number, n: number): number | null {
  const { blocks } = blockShape(n);
  let best: { shift: number; cost: number } | null = null;
  for (let shift = 6; shift <= 26; shift++) {
    const chunks = Math.ceil(v / 2 ** shift);
    if ((n + 1) * chunks > MAX_CHUNK_COUNTS) continue;
    const cost = blocks * 2 * chunks + PERCENTILES.length * Math.min(2 ** shift, v);
    if (!best || cost < best.cost) best = { shift, cost };
  }
  return best && best.cost < v ? best.shift : null;
}

/** The values (given up by the caller: sorted in place) with their owners. */
function sortedWithOwners(values: Float64Array, owner: Int32Array, n: number): SortedValues {
  sortWithOwners(values, owner);
  const sorted: SortedValues = { values, owner };
  const shift = chunkShift(values.length, n);
  return shift === null ? sorted : withChunks(sorted, n, shift);
}

/** The values with their chunk index (SortedValues.chunks) of 2^shift values per chunk, for owners 0 … n−1. */
export function withChunks(s: SortedValues, n: number, shift: number): SortedValues {
  const count = Math.ceil(s.values.length / 2 ** shift);
  const below = new Int32Array((n + 1) * count);
  for (let j = 0; j < s.owner.length; j++) below[(s.owner[j]! + 1) * count + (j >>> shift)]! += 1;
  for (let x = 1; x <= n; x++) for (let c = 0; c < count; c++) below[x * count + c]! += below[(x - 1) * count + c]!;
  const start = Int32Array.from({ length: count + 1 }, (_, c) => Math.min(s.values.length, c * 2 ** shift));
  return { ...s, chunks: { count, start, below } };
}

/**
 * Rank shares at which valueBuckets cuts: a coarse grid, and around each wanted percentile p a
 * ladder p ± d·4^k from d = BUCKET_FINEST values up to ±5%: where a resample's percentile falls
 * (near the pooled one) the buckets are small, so a resample reads few values whatever the run's
 * length; the far ones are large and rarely read.
 */
const BUCKET_COARSE = [0.125, 0.25, 0.375, 0.625, 0.75, 0.875];
const BUCKET_FINEST = 2048;
const BUCKET_WIDEST = 0.05;
/** The values whose order statistics choose the cuts (every ⌈v/this⌉-th, in the given order). */
const BUCKET_PROBES = 65536;
/** Cells of valueBuckets' grid of first guesses. */
const GUESS_CELLS = 4096;

/** The rank shares of the cuts for v values (ascending, distinct, inside (0, 1)). */
export function bucketShares(v: number): number[] {
  const shares = new Set<number>(BUCKET_COARSE);
  for (const p of PERCENTILES) {
    shares.add(p / 100);
    for (let d = BUCKET_FINEST / Math.max(1, v); d <= BUCKET_WIDEST; d *= 4) {
      shares.add(p / 100 - d);
      shares.add(p / 100 + d);
    }
  }
  return [...shares].filter((x) => x > 0 && x < 1).sort((a, b) => a - b);
}

/**
 * The values (in their owners' order, owner non-decreasing; given up by the caller: permuted in
 * place with their owners) cut by value into buckets, without sorting them: cut points are order statistics of a probe of the values at bucketShares, value
 * x goes to the bucket of the cut points ≤ x, and every bucket is a chunk of SortedValues.chunks
 * (unsorted until a resample reads it; blockPercentiles sorts it then). The concatenated sorted
 * buckets are the sorted values, so percentiles are exactly those of the full sort. Counting
 * `below` in owner order writes each request's row once, in order. The cut points only decide the
 * cost, never a result.
 */
export function valueBuckets(values: Float64Array, owner: Int32Array, n: number, cutsOverride?: readonly number[]): SortedValues {
  const v = values.length;
  const step = Math.max(1, Math.ceil(v / BUCKET_PROBES));
  const probe = new Float64Array(Math.ceil(v / step));
  for (let i = 0, j = 0; j < v; i++, j += step) probe[i] = values[j]!;
  probe.sort();
  const cutList = cutsOverride ?? (probe.length === 0 ? [] : bucketShares(v)).map((q) => probe[Math.min(probe.length - 1, Math.floor(q * probe.length))]!);
  const cuts = Float64Array.from([...new Set(cutList)].sort((a, b) => a - b));
  const count = cuts.length + 1;
  if (count > 256) throw new Error(`valueBuckets: ${count} buckets, at most 256`);
  const id = new Uint8Array(v);
  const below = new Int32Array((n + 1) * count);
  const size = new Int32Array(count);
  // A guess of each value's bucket from a uniform grid over the probe's range (the bucket of the
  // grid cell's lower edge), then corrected by comparing with the cut points: exact whatever the
  // guess, one or two comparisons for most values instead of a binary search.
  const lowest = probe.length > 0 ? probe[0]! : 0;
  const span = probe.length > 0 ? probe[probe.length - 1]! - lowest : 0;
  const cells = span > 0 ? GUESS_CELLS : 1;
  const scale = span > 0 ? cells / span : 0;
  const guess = new Uint16Array(cells);
  for (let g = 0, b = 0; g < cells; g++) {
    const edge = lowest + g / scale;
    while (b < cuts.length && cuts[b]! <= edge) b++;
    guess[g] = b;
  }
  for (let j = 0; j < v; j++) {
    const x = values[j]!;
    const cell = (x - lowest) * scale;
    let b = guess[cell <= 0 ? 0 : cell >= cells ? cells - 1 : Math.floor(cell)]!;
    // the number of cut points ≤ x
    while (b > 0 && cuts[b - 1]! > x) b--;
    while (b < cuts.length && cuts[b]! <= x) b++;
    id[j] = b;
    size[b]!++;
    below[(owner[j]! + 1) * count + b]! += 1;
  }
  for (let x = 1; x <= n; x++) for (let c = 0; c < count; c++) below[x * count + c]! += below[(x - 1) * count + c]!;
  const start = new Int32Array(count + 1);
  for (let c = 0; c < count; c++) start[c + 1] = start[c]! + size[c]!;
  // Each value (with its owner) moved to its bucket in place, cycle by cycle (an American-flag
  // pass): no second copy of the values. A bucket's order is then arbitrary; it is sorted on use.
  const next = start.slice(0, count);
  for (let b = 0; b < count; b++) {
    const end = start[b + 1]!;
    while (next[b]! < end) {
      const i = next[b]!;
      let c = id[i]!;
      if (c !== b) {
        // carry the value at i to its bucket, taking the one there, until one belongs to b
        let x = values[i]!;
        let o = owner[i]!;
        while (c !== b) {
          const j = next[c]!++;
          const y = values[j]!;
          const p = owner[j]!;
          const d = id[j]!;
          values[j] = x;
          owner[j] = o;
          id[j] = c;
          x = y;
          o = p;
          c = d;
        }
        values[i] = x;
        owner[i] = o;
        id[i] = b;
      }
      next[b]!++;
    }
  }
  return { values, owner, chunks: { count, start, below, unsorted: new Uint8Array(count).fill(1) } };
}

/** Everything a resample needs from the measure-phase records of one run. */
export function buildSample(
  measure: readonly RequestRecord[],
  window: { start_ms: number; end_ms: number } | null,
  slos: readonly Slo[] | null,
  costPerS: number | null,
): RunSample {
  const n = measure.length;
  // Exact-size typed arrays, counted first: a long run has ~10^7 ITL gaps.
  let requestValues = 0;
  let gapCount = 0;
  for (const r of measure) {
    if (r.status !== 'ok') continue;
    requestValues++;
    gapCount += itl.count(r);
  }
  const column = (size: number) => ({ values: new Float64Array(size), owner: new Int32Array(size), length: 0 });
  const cols = { ttft: column(requestValues), tpot: column(requestValues), e2el: column(requestValues), itl: column(gapCount) };
  const error = new Uint8Array(n);
  const start = window?.start_ms ?? 0;
  const durMs = window ? window.end_ms - window.start_ms : 0;
  const nb = Math.max(1, Math.ceil(durMs / 1000));
  const buckets = { ok: new Float64Array(nb), good: new Float64Array(nb), output: new Float64Array(nb), total: new Float64Array(nb) };
  for (let i = 0; i < n; i++) {
    const r = measure[i]!;
    if (r.status === 'error') error[i] = 1;
    if (r.status !== 'ok') continue;
    for (const [key, def] of [['ttft', ttft], ['tpot', tpot], ['e2el', e2el]] as const) {
      const v = def.value(r);
      if (v !== null) {
        const c = cols[key];
        c.values[c.length] = v;
        c.owner[c.length++] = i;
      }
    }
    const g = itl.count(r);
    const c = cols.itl;
    itl.fill(r, c.values, c.length);
    c.owner.fill(i, c.length, c.length + g);
    c.length += g;
    const b = Math.min(nb - 1, Math.max(0, Math.floor((r.end_ms - start) / 1000)));
    buckets.ok[b]! += 1;
    if (slos && slos.length > 0 && isGood(r, slos)) buckets.good[b]! += 1;
    buckets.output[b]! += r.output_tokens;
    buckets.total[b]! += r.output_tokens + (r.prompt_tokens ?? r.client_prompt_tokens ?? 0);
  }
  // ITL (~127 gaps a request) is cut into value buckets instead of sorted whole; the per-request
  // figures (one value a request) are sorted.
  const latency = Object.fromEntries(
    LATENCY_KEYS.map((k) => {
      const values = cols[k].values.subarray(0, cols[k].length);
      const owners = cols[k].owner.subarray(0, cols[k].length);
      return [k, k === 'itl' ? valueBuckets(values, owners, n) : sortedWithOwners(values, owners, n)];
    }),
  ) as Record<LatencyKey, SortedValues>;
  const errorsBefore = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) errorsBefore[i + 1] = errorsBefore[i]! + error[i]!;
  return { n, latency, error, errorsBefore, duration_s: durMs / 1000, buckets, cost_per_s: costPerS };
}

/**
 * Percentiles (numpy linear interpolation) of the multiset in which value j appears
 * weight[owner[j]] times. One pass over the sorted values.
 */
export function weightedPercentiles(s: SortedValues, weight: Int32Array, ps: readonly number[]): Array<number | null> {
  let total = 0;
  for (let j = 0; j < s.owner.length; j++) total += weight[s.owner[j]!]!;
  return percentilesAtRanks(total, ps, (positions, at) => {
    let cum = 0;
    let next = 0;
    for (let j = 0; j < s.values.length && next < positions.length; j++) {
      cum += weight[s.owner[j]!]!;
      while (next < positions.length && positions[next]! < cum) at.set(positions[next++]!, s.values[j]!);
    }
  });
}

/**
 * numpy's linear interpolation of `total` weighted values: `find` sets, for each wanted rank
 * (ascending), the value at that rank of the expanded multiset.
 */
function percentilesAtRanks(total: number, ps: readonly number[], find: (positions: number[], at: Map<number, number>) => void): Array<number | null> {
  if (total === 0) return ps.map(() => null);
  const wanted = ps.flatMap((p) => {
    const h = ((total - 1) * p) / 100;
    return [Math.floor(h), Math.min(total - 1, Math.floor(h) + 1)];
  });
  const positions = [...new Set(wanted)].sort((a, b) => a - b);
  const at = new Map<number, number>();
  find(positions, at);
  return ps.map((p) => {
    const h = ((total - 1) * p) / 100;
    const lo = Math.floor(h);
    const a = at.get(lo)!;
    const b = at.get(Math.min(total - 1, lo + 1))!;
    return a + (h - lo) * (b - a);
  });
}

/**
 * weightedPercentiles for a moving-block resample (weight = blockCounts of these block starts,
 * each block `len` requests), through s.chunks: a chunk's total weight is, per block, the number
 * of the chunk's values whose owner lies in the block (the difference of two rows of `below`);
 * only the chunks holding a wanted rank are scanned value by value (a value bucket sorted first,
 * once). The same multiset and ranks as the plain scan, so the same values, exactly
 * (test/analysis/bootstrap-blocks.test.ts).
 */
export function blockPercentiles(s: SortedValues, weight: Int32Array, starts: Int32Array, len: number, ps: readonly number[]): Array<number | null> {
  const ch = s.chunks;
  if (!ch) return weightedPercentiles(s, weight, ps);
  const m = ch.count;
  const chunkWeight = new Float64Array(m);
  for (let b = 0; b < starts.length; b++) {
    const from = starts[b]! * m;
    const to = (starts[b]! + len) * m;
    for (let c = 0; c < m; c++) chunkWeight[c]! += ch.below[to + c]! - ch.below[from + c]!;
  }
  let total = 0;
  for (let c = 0; c < m; c++) total += chunkWeight[c]!;
  return percentilesAtRanks(total, ps, (positions, at) => {
    let cum = 0;
    let next = 0;
    for (let c = 0; c < m && next < positions.length; c++) {
      if (positions[next]! >= cum + chunkWeight[c]!) {
        cum += chunkWeight[c]!;
        continue;
      }
      const from = ch.start[c]!;
      const end = ch.start[c + 1]!;
      if (ch.unsorted?.[c]) {
        sortWithOwners(s.values.subarray(from, end), s.owner.subarray(from, end));
        ch.unsorted[c] = 0;
      }
      for (let j = from; j < end && next < positions.length; j++) {
        cum += weight[s.owner[j]!]!;
        while (next < positions.length && positions[next]! < cum) at.set(positions[next++]!, s.values[j]!);
      }
    }
  });
}

/**
 * Moving-block resample of n items in their order: ⌈n/L⌉ blocks of L consecutive items, each
 * starting at a uniform position, L = ⌈√n⌉. Requests sent close together share the engine's
 * batches, so their latencies are correlated; resampling them one by one would understate the
 * spread. The counts sum to ⌈n/L⌉·L ≥ n.
 */
export function blockCounts(rng: Rng, n: number, out: Int32Array, starts?: Int32Array): Int32Array {
  out.fill(0);
  if (n === 0) return out;
  const { len, blocks } = blockShape(n);
  // Each block as +1 at its start and −1 after its end, then one running sum: n + blocks steps
  // instead of blocks × len (the same counts).
  for (let b = 0; b < blocks; b++) {
    const start = rng.int(0, n - len);
    if (starts) starts[b] = start;
    out[start]! += 1;
    if (start + len < n) out[start + len]! -= 1;
  }
  for (let i = 1; i < n; i++) out[i]! += out[i - 1]!;
  return out;
}

function multinomialCounts(rng: Rng, n: number, out: Int32Array): Int32Array {
  out.fill(0);
  for (let i = 0; i < n; i++) out[rng.int(0, n - 1)]! += 1;
  return out;
}

/** Scratch buffers reused across resamples of one run. */
export interface Scratch {
  requests: Int32Array;
  /** The resample's block starts (blockCounts). */
  starts: Int32Array;
  buckets: Int32Array;
}

export function scratchFor(s: RunSample): Scratch {
  return { requests: new Int32Array(s.n), starts: new Int32Array(blockShape(s.n).blocks), buckets: new Int32Array(s.buckets.ok.length) };
}

/** The key figures of one bootstrap resample of the run. */
export function resampleFigures(s: RunSample, rng: Rng, scratch: Scratch, goodput: boolean, withItl = true): FigureValues {
  const k = blockCounts(rng, s.n, scratch.requests, scratch.starts);
  const { len } = blockShape(s.n);
  const out: FigureValues = {};
  for (const key of LATENCY_KEYS) {
    if (key === 'itl' && !withItl) continue;
    const ps = blockPercentiles(s.latency[key], k, scratch.starts, len, PERCENTILES);
    PERCENTILES.forEach((p, i) => (out[`${key}_p${p}`] = ps[i]!));
  }
  // Σ k_i × error_i block by block (two look-ups each); every block holds len requests. Integers: exact.
  let errors = 0;
  for (let b = 0; b < scratch.starts.length; b++) errors += s.errorsBefore[scratch.starts[b]! + len]! - s.errorsBefore[scratch.starts[b]!]!;
  const drawn = s.n === 0 ? 0 : scratch.starts.length * len;
  out.error_rate = drawn > 0 ? errors / drawn : null;
  const nb = s.buckets.ok.length;
  const kb = multinomialCounts(rng, nb, scratch.buckets);
  const sum = (x: Float64Array): number => {
    let t = 0;
    for (let j = 0; j < nb; j++) t += kb[j]! * x[j]!;
    return t;
  };
  const d = s.duration_s;
  const rate = (x: Float64Array): number | null => (d > 0 ? sum(x) / d : null);
  out.request_throughput = rate(s.buckets.ok);
  out.output_throughput = rate(s.buckets.output);
  const total = rate(s.buckets.total);
  out.total_token_throughput = total;
  out.goodput = goodput ? rate(s.buckets.good) : null;
  out.cost_per_1m_tokens = s.cost_per_s !== null && d > 0 ? perMillionTokens(s.cost_per_s * d, sum(s.buckets.total)) : null;
  return out;
}
