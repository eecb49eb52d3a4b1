/**
 * One figure's values kept block by block for compare's block bootstrap (bootstrap.ts), and the
 * value at a weighted rank when every value of block b counts w[b] times.
 *
 * Layout (BlockValues):
 * - Each block's values sorted and run-length encoded: block b's distinct values ascending are
 *   value[first[b]] … value[first[b + 1] − 1], count[j] of the block's values equal value[j].
 *   Requests of one batch see the same gaps, so a long run's ITL holds far fewer distinct
 *   (value, block) pairs than gaps; with no ties at all a run is one value (count 1).
 * - A chunk index over value: cut points cut[0] < cut[1] < … split the value axis into `chunks`
 *   chunks (chunk c = values in [cut[c − 1], cut[c]), the first and last open-ended), and for
 *   c = 0 … chunks, row c of `at` and `below` (blocks entries each) holds, per block, the first
 *   run at or above chunk c's floor and the number of the block's values below it.
 *
 * Invariants: value ascending within each block's runs; count ≥ 1; at[c × blocks + b] is
 * non-decreasing in c from first[b] (c = 0) to first[b + 1] (c = chunks); below likewise from 0 to
 * the block's number of values. The weight below chunk c is then a dot product of the block
 * weights with row c (exact: integers far below 2^53), so the chunk holding a rank is found by
 * binary search over chunks, and only that chunk's runs are read (rankValue). The cut points
 * decide only the cost, never the value found.
 */

/** Blocks of fewer values are sorted directly (BlockValuesBuilder.endBlock). */
const HASH_FROM = 256;
/** Runs per chunk aimed at; more when the index would pass MAX_INDEX_CELLS. */
const RUNS_PER_CHUNK = 64;
/** Cells of one index matrix ((chunks + 1) × blocks Int32), a bound on its memory. */
const MAX_INDEX_CELLS = 2 ** 19;
/** Run values whose order statistics choose the cut points (every ⌈runs/this⌉-th). */
const CUT_PROBES = 65536;

export interface BlockValues {
  blocks: number;
  value: Float64Array;
  count: Int32Array;
  /** blocks + 1 run offsets. */
  first: Int32Array;
  chunks: number;
  /** (chunks + 1) × blocks: the first run of block b at or above chunk c's floor. */
  at: Int32Array;
  /** (chunks + 1) × blocks: block b's values below chunk c's floor (row `chunks`: all of them). */
  below: Int32Array;
  /** The most runs any chunk holds (the size of a gather, Selection). */
  widest: number;
}

/** Collects a figure's values block after block (blocks in order; any order inside one). */
export class BlockValuesBuilder {
  private pending = new Float64Array(1024);
  private pendingLength = 0;
  private value = new Float64Array(1024);
  private count = new Int32Array(1024);
  private runs = 0;
  private readonly first: Int32Array;
  private block = 0;
  /** hashRuns' table (key, count; count 0 = empty), its used slots, and a view of a double's bits. */
  private keys = new Float64Array(0);
  private counts = new Int32Array(0);
  private used = new Int32Array(0);
  private readonly bits = new Float64Array(1);
  private readonly words = new Uint32Array(this.bits.buffer);

  constructor(private readonly blocks: number) {
    this.first = new Int32Array(blocks + 1);
  }

  /** Room for k more values of the current block: write them from `offset` of `array`, then call added(k). */
  room(k: number): { array: Float64Array; offset: number } {
    if (this.pendingLength + k > this.pending.length) {
      const grown = new Float64Array(Math.max(this.pendingLength + k, this.pending.length * 2));
      grown.set(this.pending.subarray(0, this.pendingLength));
      this.pending = grown;
    }
    return { array: this.pending, offset: this.pendingLength };
  }

  added(k: number): void {
    this.pendingLength += k;
  }

  push(x: number): void {
    this.room(1).array[this.pendingLength++] = x;
  }

  /** Closes the current block: its values sorted and run-length encoded. */
  endBlock(): void {
    const xs = this.pending.subarray(0, this.pendingLength);
    if (xs.length < HASH_FROM || !this.hashRuns(xs)) this.sortRuns(xs);
    this.pendingLength = 0;
    this.first[++this.block] = this.runs;
  }

  /** The runs by a sort of every value (few ties). */
  private sortRuns(xs: Float64Array): void {
    xs.sort();
    const from = this.runs;
    for (let i = 0; i < xs.length; i++) {
      const x = xs[i]!;
      if (this.runs > from && this.value[this.runs - 1] === x) this.count[this.runs - 1]!++;
      else {
        if (this.runs === this.value.length) this.grow(this.runs + 1);
        this.value[this.runs] = x;
        this.count[this.runs++] = 1;
      }
    }
  }

  /**
   * The runs by counting the distinct values in a hash table and sorting only those: with many
   * ties (a batch's requests share their gaps) a fraction of a full sort's work. False, with
   * nothing written, once more than half the values are distinct (then sortRuns is cheaper).
   */
  private hashRuns(xs: Float64Array): boolean {
    const limit = xs.length >>> 1;
    if (this.keys.length < 2 * limit) {
      let size = 1024;
      while (size < 2 * limit) size *= 2;
      this.keys = new Float64Array(size);
      this.counts = new Int32Array(size);
      this.used = new Int32Array(size >>> 1);
    }
    const { keys, counts, used, bits, words } = this;
    const mask = keys.length - 1;
    let distinct = 0;
    for (let i = 0; i < xs.length; i++) {
      // -0 as 0: one key for equal values
      const x = xs[i]! === 0 ? 0 : xs[i]!;
      if (x !== x) throw new Error('BlockValuesBuilder: NaN');
      bits[0] = x;
      let h = (Math.imul(words[0]!, 0x9e3779b1) ^ Math.imul(words[1]!, 0x85ebca77)) & mask;
      while (counts[h]! !== 0 && keys[h]! !== x) h = (h + 1) & mask;
      if (counts[h]! === 0) {
        if (distinct === limit) {
          for (let d = 0; d < distinct; d++) counts[used[d]!] = 0;
          return false;
        }
        keys[h] = x;
        used[distinct++] = h;
      }
      counts[h]!++;
    }
    const sorted = new Float64Array(distinct);
    for (let d = 0; d < distinct; d++) sorted[d] = keys[used[d]!]!;
    sorted.sort();
    if (this.runs + distinct > this.value.length) this.grow(this.runs + distinct);
    for (let d = 0; d < distinct; d++) {
      const x = sorted[d]!;
      bits[0] = x;
      let h = (Math.imul(words[0]!, 0x9e3779b1) ^ Math.imul(words[1]!, 0x85ebca77)) & mask;
      while (keys[h]! !== x) h = (h + 1) & mask;
      this.value[this.runs] = x;
      this.count[this.runs++] = counts[h]!;
    }
    for (let d = 0; d < distinct; d++) counts[used[d]!] = 0;
    return true;
  }

  private grow(least: number): void {
    const size = Math.max(least, this.value.length * 2);
    const value = new Float64Array(size);
    value.set(this.value);
    const count = new Int32Array(size);
    count.set(this.count);
    this.value = value;
    this.count = count;
  }

  /** The values with their chunk index; runsPerChunk (the aim) only for tests of many small chunks. */
  finish(runsPerChunk = RUNS_PER_CHUNK): BlockValues {
    if (this.block !== this.blocks) throw new Error(`BlockValuesBuilder: ${this.block} of ${this.blocks} blocks closed`);
    const value = this.value.slice(0, this.runs);
    const count = this.count.slice(0, this.runs);
    this.pending = new Float64Array(0);
    this.value = new Float64Array(0);
    this.count = new Int32Array(0);
    this.keys = new Float64Array(0);
    this.counts = new Int32Array(0);
    this.used = new Int32Array(0);
    return indexChunks(this.blocks, value, count, this.first, runsPerChunk);
  }
}

/** The values with their chunk index (cuts from a probe of the run values, see the file's header). */
function indexChunks(blocks: number, value: Float64Array, count: Int32Array, first: Int32Array, runsPerChunk: number): BlockValues {
  const runs = value.length;
  const wanted = Math.max(1, Math.min(Math.ceil(runs / runsPerChunk), Math.floor(MAX_INDEX_CELLS / Math.max(1, blocks)) - 1));
  const step = Math.max(1, Math.ceil(runs / CUT_PROBES));
  const probe = new Float64Array(Math.ceil(runs / step));
  for (let i = 0, j = 0; j < runs; i++, j += step) probe[i] = value[j]!;
  probe.sort();
  const cutList: number[] = [];
  for (let i = 1; i < wanted; i++) {
    const x = probe[Math.floor((i * probe.length) / wanted)]!;
    if (cutList.length === 0 || x > cutList[cutList.length - 1]!) cutList.push(x);
  }
  const cuts = Float64Array.from(cutList);
  const chunks = cuts.length + 1;
  const at = new Int32Array((chunks + 1) * blocks);
  const below = new Int32Array((chunks + 1) * blocks);
  // Row by row, a cursor per block (its first run not below the row's floor) and its count so far.
  const cursor = first.slice(0, blocks);
  const cum = new Int32Array(blocks);
  at.set(cursor);
  let widest = 0;
  let previousRow = 0;
  for (let b = 0; b < blocks; b++) previousRow += cursor[b]!;
  for (let c = 1; c <= chunks; c++) {
    // the last row takes every run left (an infinite value too)
    const last = c === chunks;
    const floor = last ? 0 : cuts[c - 1]!;
    const row = c * blocks;
    let rowSum = 0;
    for (let b = 0; b < blocks; b++) {
      let j = cursor[b]!;
      let k = cum[b]!;
      const end = first[b + 1]!;
      for (; j < end && (last || value[j]! < floor); j++) k += count[j]!;
      cursor[b] = j;
      cum[b] = k;
      at[row + b] = j;
      below[row + b] = k;
      rowSum += j;
    }
    // runs in chunk c − 1: Σ over blocks of at[c] − at[c − 1]
    widest = Math.max(widest, rowSum - previousRow);
    previousRow = rowSum;
  }
  return { blocks, value, count, first, chunks, at, below, widest };
}

/**
 * One resample's block weights, sparse: blocks[i] drawn weight[i] > 0 times (i < size); the
 * scratch of a chunk's gathered runs; and which chunk of which figure is gathered there, with the
 * weights below and above it, so the next rank in the same chunk (a percentile's two neighbouring
 * ranks, mostly) is selected again without a search or a gather.
 */
export interface Selection {
  blocks: Int32Array;
  weight: Int32Array;
  size: number;
  values: Float64Array;
  weights: Float64Array;
  /** The figure gathered (null: none yet for these weights), its chunk, the runs gathered, the weight below the chunk and below the next one. */
  figure: BlockValues | null;
  chunk: number;
  gathered: number;
  belowChunk: number;
  belowNext: number;
  total: number;
}

export function newSelection(blocks: number, widest: number): Selection {
  return { blocks: new Int32Array(blocks), weight: new Int32Array(blocks), size: 0, values: new Float64Array(widest), weights: new Float64Array(widest), figure: null, chunk: -1, gathered: 0, belowChunk: 0, belowNext: 0, total: 0 };
}

/** Σ weight × below over the drawn blocks: the weight under the resample of values below chunk c. */
function weightBelow(s: BlockValues, sel: Selection, c: number): number {
  const row = c * s.blocks;
  let t = 0;
  for (let i = 0; i < sel.size; i++) t += sel.weight[i]! * s.below[row + sel.blocks[i]!]!;
  return t;
}

/** Makes `s` the figure rankValue reads under sel's weights (after the weights changed, too); returns its total weight. */
export function startFigure(s: BlockValues, sel: Selection): number {
  sel.figure = s;
  sel.chunk = -1;
  sel.gathered = 0;
  sel.belowChunk = 0;
  sel.belowNext = 0;
  sel.total = weightBelow(s, sel, s.chunks);
  return sel.total;
}

/**
 * The value at rank r (0-based, r < the total weight) of the multiset in which each value of
 * block b counts as often as the resample drew b (s made current by startFigure): the chunk
 * holding r by binary search (from the last chunk read, when r is above it), then a weighted
 * selection among that chunk's runs of the drawn blocks.
 */
export function rankValue(s: BlockValues, sel: Selection, r: number): number {
  if (sel.figure !== s) throw new Error('rankValue: startFigure first');
  if (sel.chunk >= 0 && r >= sel.belowChunk && r < sel.belowNext) return weightedSelect(sel.values, sel.weights, sel.gathered, r - sel.belowChunk);
  const above = sel.chunk >= 0 && r >= sel.belowNext;
  let lo = above ? sel.chunk + 1 : 0;
  let belowLo = above ? sel.belowNext : 0;
  let hi = s.chunks;
  let belowHi = sel.total;
  // below(lo) ≤ r < below(hi)
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    const w = weightBelow(s, sel, mid);
    if (w <= r) {
      lo = mid;
      belowLo = w;
    } else {
      hi = mid;
      belowHi = w;
    }
  }
  const from = lo * s.blocks;
  const to = from + s.blocks;
  let g = 0;
  for (let i = 0; i < sel.size; i++) {
    const b = sel.blocks[i]!;
    const w = sel.weight[i]!;
    for (let j = s.at[from + b]!, end = s.at[to + b]!; j < end; j++) {
      sel.values[g] = s.value[j]!;
      sel.weights[g++] = w * s.count[j]!;
    }
  }
  sel.chunk = lo;
  sel.gathered = g;
  sel.belowChunk = belowLo;
  sel.belowNext = belowHi;
  return weightedSelect(sel.values, sel.weights, g, r - belowLo);
}

/**
 * The smallest x among values[0 … g − 1] whose weight at or below it exceeds t (0 ≤ t < the total
 * weight): quickselect with a three-way partition (weights carried along, permuted in place),
 * insertion sort and a scan once the range is small.
 */
export function weightedSelect(values: Float64Array, weights: Float64Array, g: number, t: number): number {
  let lo = 0;
  let hi = g;
  for (;;) {
    if (hi - lo <= 16) {
      for (let i = lo + 1; i < hi; i++) {
        const x = values[i]!;
        const y = weights[i]!;
        let j = i - 1;
        while (j >= lo && values[j]! > x) {
          values[j + 1] = values[j]!;
          weights[j + 1] = weights[j]!;
          j--;
        }
        values[j + 1] = x;
        weights[j + 1] = y;
      }
      let cum = 0;
      for (let i = lo; i < hi; i++) {
        cum += weights[i]!;
        if (t < cum) return values[i]!;
      }
      throw new Error('weightedSelect: rank beyond the total weight');
    }
    const a = values[lo]!;
    const b = values[(lo + hi) >>> 1]!;
    const c = values[hi - 1]!;
    const p = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
    // [lo, lt) < p, [lt, i) = p, (gt, hi) > p
    let lt = lo;
    let i = lo;
    let gt = hi - 1;
    let less = 0;
    let equal = 0;
    while (i <= gt) {
      const x = values[i]!;
      if (x < p) {
        const y = weights[i]!;
        values[i] = values[lt]!;
        weights[i] = weights[lt]!;
        values[lt] = x;
        weights[lt] = y;
        less += y;
        lt++;
        i++;
      } else if (x > p) {
        const y = weights[i]!;
        values[i] = values[gt]!;
        weights[i] = weights[gt]!;
        values[gt] = x;
        weights[gt] = y;
        gt--;
      } else {
        equal += weights[i]!;
        i++;
      }
    }
    if (t < less) hi = lt;
    else if (t < less + equal) return p;
    else {
      t -= less + equal;
      lo = gt + 1;
    }
  }
}
