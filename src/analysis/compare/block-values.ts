/**
 * One figure's values kept block by block for compare's block bootstrap (bootstrap.ts), and the
 * value at a weighted rank when every value of block b counts w[b] times.
 *
 * Layout (BlockValues):
 * - Cut points cut[0] < cut[1] < … (order statistics of a probe of the figure's values, chosen
 *   before any block is read) split the value axis into `chunks` chunks: chunk c holds the values
 *   x with cut[c − 1] ≤ x < cut[c], the first and last open-ended.
 * - Each block's values as entries (value, count), grouped by chunk: block b's entries of chunk c
 *   are value[at[c × blocks + b]] … value[at[(c + 1) × blocks + b] − 1], in no order inside the
 *   group. A block's distinct values are counted in a hash table, so an entry is a distinct value
 *   with how often the block holds it: requests of one batch see the same gaps, so a long run's
 *   ITL holds far fewer distinct (value, block) pairs than gaps. When most of a block's values are
 *   distinct the hash is skipped and every value is an entry of count 1.
 * - below[c × blocks + b] = block b's values (Σ count) in chunks before c.
 *
 * Invariants: count ≥ 1; at[c × blocks + b] non-decreasing in c, from first[b] (c = 0) to
 * first[b + 1] (c = chunks); below likewise from 0 to the block's number of values. The weight
 * below chunk c is a dot product of the block weights with row c (exact: integers far below
 * 2^53), so the chunk holding a rank is found by binary search over chunks, and only that chunk's
 * entries of the drawn blocks are read, by weighted quickselect (rankValue): nothing is ever
 * sorted but the probe. The cut points decide only the cost, never the value found.
 */

/** Blocks of fewer values are not hashed (every value its own entry). */
const HASH_FROM = 256;
/** Values read before a block's hash gives up when most are distinct. */
const HASH_TRIAL = 4096;
/** Entries per chunk aimed at (from the count of values; ties make them fewer). */
const VALUES_PER_CHUNK = 64;
/** Cells of one index matrix ((chunks + 1) × blocks Int32), a bound on its memory. */
const MAX_INDEX_CELLS = 2 ** 19;
/** Cells of the grid of first guesses of a value's chunk. */
const GUESS_CELLS = 4096;

export interface BlockValues {
  blocks: number;
  value: Float64Array;
  count: Int32Array;
  /** blocks + 1 entry offsets. */
  first: Int32Array;
  chunks: number;
  /** (chunks + 1) × blocks: the first entry of block b in chunk c (row `chunks`: the block's end). */
  at: Int32Array;
  /** (chunks + 1) × blocks: block b's values below chunk c (row `chunks`: all of them). */
  below: Int32Array;
  /** The most entries any chunk holds (the size of a gather, Selection). */
  widest: number;
  /** chunks + 1: every block's values below chunk c (the row sums of `below`), the scale rankValue guesses a chunk on. */
  cumulative: Float64Array;
}

/** The cut points for about `values` values from a probe of them (any order; sorted in place). */
export function cutPoints(probe: Float64Array, values: number, blocks: number, valuesPerChunk = VALUES_PER_CHUNK): Float64Array {
  probe.sort();
  const wanted = Math.max(1, Math.min(Math.ceil(values / valuesPerChunk), Math.floor(MAX_INDEX_CELLS / Math.max(1, blocks)) - 1, probe.length));
  const cuts: number[] = [];
  for (let i = 1; i < wanted; i++) {
    const x = probe[Math.floor((i * probe.length) / wanted)]!;
    if (cuts.length === 0 || x > cuts[cuts.length - 1]!) cuts.push(x);
  }
  return Float64Array.from(cuts);
}

/** Collects a figure's values block after block (blocks in order; any order inside one). */
export class BlockValuesBuilder {
  private pending = new Float64Array(1024);
  private pendingLength = 0;
  private value = new Float64Array(1024);
  private count = new Int32Array(1024);
  private entries = 0;
  private readonly first: Int32Array;
  private block = 0;
  private readonly chunks: number;
  private readonly at: Int32Array;
  private readonly below: Int32Array;
  /** Per chunk: entries of the current block, then (cellStart) where they go; entries of all blocks so far. */
  private readonly cellEntries: Int32Array;
  private readonly cellValues: Int32Array;
  private readonly chunkEntries: Int32Array;
  /** A block's entries before they are placed: value, count, chunk. */
  private entryValue = new Float64Array(1024);
  private entryCount = new Int32Array(1024);
  private entryChunk = new Int32Array(1024);
  /** The number of cut points at or below the floor of each guess cell (chunkOf). */
  private readonly guess: Int32Array;
  private readonly lowest: number;
  private readonly scale: number;
  /** The hash table (key, count; count 0 = empty), its used slots, and a view of a double's bits. */
  private keys = new Float64Array(0);
  private counts = new Int32Array(0);
  private used = new Int32Array(0);
  /** The table size the last hashed block ended with. */
  private tableSize = 1024;
  private readonly bits = new Float64Array(1);
  private readonly words = new Uint32Array(this.bits.buffer);

  constructor(
    private readonly blocks: number,
    private readonly cuts: Float64Array,
  ) {
    this.first = new Int32Array(blocks + 1);
    this.chunks = cuts.length + 1;
    this.at = new Int32Array((this.chunks + 1) * blocks);
    this.below = new Int32Array((this.chunks + 1) * blocks);
    this.cellEntries = new Int32Array(this.chunks);
    this.cellValues = new Int32Array(this.chunks);
    this.chunkEntries = new Int32Array(this.chunks);
    // A value's chunk from a uniform grid over the cut points' range: the chunks of a grid cell's
    // floor and of the next cell's bound the value's, a binary search between them finds it (a
    // few steps where the cut points crowd, none where a cell holds one chunk), and a comparison
    // each way corrects a value the cell's rounding put one cell off: exact whatever the grid.
    this.lowest = cuts.length > 0 ? cuts[0]! : 0;
    const span = cuts.length > 0 ? cuts[cuts.length - 1]! - this.lowest : 0;
    const cells = span > 0 ? GUESS_CELLS : 1;
    this.scale = span > 0 ? cells / span : 0;
    this.guess = new Int32Array(cells + 1);
    for (let g = 0, c = 0; g < cells; g++) {
      const floor = this.lowest + g / (this.scale || 1);
      while (c < cuts.length && cuts[c]! <= floor) c++;
      this.guess[g] = c;
    }
    this.guess[cells] = cuts.length;
  }

  /** The chunk of x: the number of cut points ≤ x. */
  private chunkOf(x: number): number {
    const cuts = this.cuts;
    const g = this.guess;
    const cells = g.length - 1;
    const at = (x - this.lowest) * this.scale;
    const cell = at <= 0 ? 0 : at >= cells ? cells - 1 : Math.floor(at);
    let lo = g[cell]!;
    let hi = g[cell + 1]!;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (cuts[mid - 1]! <= x) lo = mid;
      else hi = mid - 1;
    }
    let c = lo;
    while (c > 0 && cuts[c - 1]! > x) c--;
    while (c < cuts.length && cuts[c]! <= x) c++;
    return c;
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

  /** Closes the current block: its entries counted, each put in its chunk's group. */
  endBlock(): void {
    const xs = this.pending.subarray(0, this.pendingLength);
    if (this.entryValue.length < xs.length) {
      this.entryValue = new Float64Array(xs.length);
      this.entryCount = new Int32Array(xs.length);
      this.entryChunk = new Int32Array(xs.length);
    }
    const k = xs.length >= HASH_FROM ? this.hashEntries(xs) : -1;
    const n = k >= 0 ? k : xs.length;
    if (k < 0) {
      for (let i = 0; i < n; i++) {
        this.entryValue[i] = xs[i]!;
        this.entryCount[i] = 1;
      }
    }
    this.place(n);
    this.pendingLength = 0;
  }

  /** The block's n entries (entryValue, entryCount) into the chunk groups, and the block's column of the index. */
  private place(n: number): void {
    const { chunks, blocks, cellEntries, cellValues } = this;
    const b = this.block;
    cellEntries.fill(0);
    cellValues.fill(0);
    for (let i = 0; i < n; i++) {
      const x = this.entryValue[i]!;
      if (x !== x) throw new Error('BlockValuesBuilder: NaN');
      const c = this.chunkOf(x);
      this.entryChunk[i] = c;
      cellEntries[c]!++;
      cellValues[c]! += this.entryCount[i]!;
    }
    if (this.entries + n > this.value.length) this.grow(this.entries + n);
    let start = this.entries;
    let below = 0;
    for (let c = 0; c < chunks; c++) {
      this.at[c * blocks + b] = start;
      this.below[c * blocks + b] = below;
      const e = cellEntries[c]!;
      this.chunkEntries[c]! += e;
      below += cellValues[c]!;
      cellEntries[c] = start;
      start += e;
    }
    this.at[chunks * blocks + b] = start;
    this.below[chunks * blocks + b] = below;
    for (let i = 0; i < n; i++) {
      const j = cellEntries[this.entryChunk[i]!]!++;
      this.value[j] = this.entryValue[i]!;
      this.count[j] = this.entryCount[i]!;
    }
    this.entries = start;
    this.first[++this.block] = start;
  }

  /**
   * x's home slot in a table of 2^(32 − shift) slots: both halves of its bits mixed, then the
   * product's top bits (multiplicative hashing). The top bits, because the low bits of a product
   * depend only on the low bits of its factors, and a whole or short binary number (whole ms, a
   * quarter ms) has zero low bits in both halves: it would hash to slot 0, every one of them.
   */
  private slotOf(x: number, shift: number): number {
    this.bits[0] = x;
    return Math.imul(this.words[0]! ^ Math.imul(this.words[1]!, 0x85ebca77), 0x9e3779b1) >>> shift;
  }

  /**
   * The block's distinct values with their counts (entryValue, entryCount) through a hash table,
   * and how many; −1, with nothing written, when most of the first HASH_TRIAL values (or half of
   * all) are distinct: then every value is its own entry, cheaper than hashing them.
   */
  private hashEntries(xs: Float64Array): number {
    const limit = xs.length >>> 1;
    if (this.keys.length < 2 * limit) {
      let size = 1024;
      while (size < 2 * limit) size *= 2;
      this.keys = new Float64Array(size);
      this.counts = new Int32Array(size);
      this.used = new Int32Array(size >>> 1);
    }
    const { keys, counts, used, bits, words } = this;
    // The table is a prefix of the arrays, as large as the last block needed (a small table stays
    // in cache), grown fourfold while it fills.
    let size = Math.min(keys.length, this.tableSize);
    let mask = size - 1;
    let shift = Math.clz32(size) + 1;
    const trial = Math.min(xs.length, HASH_TRIAL);
    let distinct = 0;
    for (let i = 0; i < xs.length; i++) {
      // -0 as 0: one key for equal values
      const x = xs[i]! === 0 ? 0 : xs[i]!;
      // slotOf, inline
      bits[0] = x;
      let h = Math.imul(words[0]! ^ Math.imul(words[1]!, 0x85ebca77), 0x9e3779b1) >>> shift;
      let c = counts[h]!;
      while (c !== 0 && keys[h]! !== x) {
        h = (h + 1) & mask;
        c = counts[h]!;
      }
      // most values are in the table already: the rest of the loop is for a new one (or NaN, which equals no key)
      if (c !== 0) {
        counts[h] = c + 1;
        continue;
      }
      if (x !== x) throw new Error('BlockValuesBuilder: NaN');
      if (distinct === limit || (i < trial && distinct * 4 > trial * 3)) {
        for (let d = 0; d < distinct; d++) counts[used[d]!] = 0;
        return -1;
      }
      if (4 * (distinct + 1) > size) {
        // rehash into a table four times larger (the entries parked in the entry arrays)
        for (let d = 0; d < distinct; d++) {
          this.entryValue[d] = keys[used[d]!]!;
          this.entryCount[d] = counts[used[d]!]!;
          counts[used[d]!] = 0;
        }
        size = Math.min(keys.length, size * 4);
        mask = size - 1;
        shift = Math.clz32(size) + 1;
        for (let d = 0; d < distinct; d++) {
          const y = this.entryValue[d]!;
          let g = this.slotOf(y, shift);
          while (counts[g]! !== 0) g = (g + 1) & mask;
          keys[g] = y;
          counts[g] = this.entryCount[d]!;
          used[d] = g;
        }
        h = this.slotOf(x, shift);
        while (counts[h]! !== 0) h = (h + 1) & mask;
      }
      keys[h] = x;
      counts[h] = 1;
      used[distinct++] = h;
    }
    for (let d = 0; d < distinct; d++) {
      const h = used[d]!;
      this.entryValue[d] = keys[h]!;
      this.entryCount[d] = counts[h]!;
      counts[h] = 0;
    }
    this.tableSize = size;
    return distinct;
  }

  private grow(least: number): void {
    // to what the blocks so far foretell for all of them (an eighth more), and at least a quarter
    // more than now: few copies, and little room left over at the end
    const foretold = Math.ceil(((least * this.blocks) / (this.block + 1)) * 1.125);
    const size = Math.max(least, foretold, Math.ceil(this.value.length * 1.25));
    const value = new Float64Array(size);
    value.set(this.value.subarray(0, this.entries));
    const count = new Int32Array(size);
    count.set(this.count.subarray(0, this.entries));
    this.value = value;
    this.count = count;
  }

  finish(): BlockValues {
    if (this.block !== this.blocks) throw new Error(`BlockValuesBuilder: ${this.block} of ${this.blocks} blocks closed`);
    const value = this.value.slice(0, this.entries);
    const count = this.count.slice(0, this.entries);
    for (const name of ['pending', 'value', 'entryValue', 'keys'] as const) this[name] = new Float64Array(0);
    for (const name of ['count', 'entryCount', 'entryChunk', 'counts', 'used'] as const) this[name] = new Int32Array(0);
    let widest = 0;
    for (let c = 0; c < this.chunks; c++) widest = Math.max(widest, this.chunkEntries[c]!);
    const cumulative = new Float64Array(this.chunks + 1);
    for (let c = 0; c <= this.chunks; c++) {
      let t = 0;
      for (let b = 0, row = c * this.blocks; b < this.blocks; b++) t += this.below[row + b]!;
      cumulative[c] = t;
    }
    return { blocks: this.blocks, value, count, first: this.first, chunks: this.chunks, at: this.at, below: this.below, widest, cumulative };
  }
}

/**
 * One resample's block weights, sparse: blocks[i] drawn weight[i] > 0 times (i < size); the
 * scratch of a chunk's gathered entries; and which chunk of which figure is gathered there, with the
 * weights below and above it, so the next rank in the same chunk (a percentile's two neighbouring
 * ranks, mostly) is selected again without a search or a gather.
 */
export interface Selection {
  blocks: Int32Array;
  weight: Int32Array;
  size: number;
  values: Float64Array;
  weights: Float64Array;
  /** The figure gathered (null: none yet for these weights), its chunk, the entries gathered, the weight below the chunk and below the next one. */
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

/** Guesses of rankValue's chunk search before it bisects. */
const GUESSES = 6;

/**
 * The value at rank r (0-based, r < the total weight) of the multiset in which each value of
 * block b counts as often as the resample drew b (s made current by startFigure): the chunk
 * holding r by a search over chunks (from the last chunk read, when r is above it), then a
 * weighted selection among that chunk's entries of the drawn blocks.
 *
 * The search keeps below(lo) ≤ r < below(hi), each step one weightBelow (a pass over the drawn
 * blocks, the cost of a resample). A resample's weight below a chunk is close to the whole
 * sample's (cumulative) scaled to its total, so the first steps split the bracket where r lies
 * on that scale, moved each time by how far the last weight missed r: they mostly land on the
 * chunk in a few steps where bisection takes log2(chunks). Bisection finishes whatever is left,
 * so the chunk found is the same one (the only chunk with below(c) ≤ r < below(c + 1)).
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
  const cum = s.cumulative;
  const scale = cum[s.chunks]! / sel.total;
  let x = r * scale;
  for (let step = 0; step < GUESSES && hi - lo > 1; step++) {
    const g = Math.min(hi - 1, Math.max(lo + 1, nearestBoundary(cum, x, lo, hi)));
    const w = weightBelow(s, sel, g);
    if (w <= r) {
      lo = g;
      belowLo = w;
    } else {
      hi = g;
      belowHi = w;
    }
    x = cum[g]! + (r - w) * scale;
  }
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

/** The chunk boundary c in [lo, hi] nearest to x on the whole sample's scale (cum non-decreasing): bisection of cum, no weights read. */
function nearestBoundary(cum: Float64Array, x: number, lo: number, hi: number): number {
  // the last c in [lo, hi) with cum[c] ≤ x (lo when none)
  let a = lo;
  let b = hi;
  while (b - a > 1) {
    const mid = (a + b) >>> 1;
    if (cum[mid]! <= x) a = mid;
    else b = mid;
  }
  return x - cum[a]! > cum[a + 1]! - x ? a + 1 : a;
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
