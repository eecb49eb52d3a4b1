/**
 * Per-chunk passes over many records, per step where records share a step timeline: ITL's
 * gaps (chunkGapVisitor) and output tokens over time (addChunkTokens), or both in one pass over
 * the chunks (gapsSpreadingTokens: a run's figures and its report each read every chunk once less).
 *
 * Gaps: every gap between consecutive chunk times of a set of records, visited in batches. Records whose chunks are a stretch of a shared step timeline (record/step-stretch.ts)
 * are visited per step: step k's gap t[k] − t[k−1] once, with the number of those records whose
 * stretch holds steps k−1 and k as its weight. The multiset of values is the one of visiting
 * every gap of every record, so counts, minima, maxima and quantiles are the same; only sums
 * (the mean) are taken in another order. An hour at 20 req/s is 9 M gaps over 92 k steps.
 */
import type { RequestRecord } from '../record/record.js';
import { stepStretchOf, type SharedTimeline } from '../record/step-stretch.js';
import { ChunkTimes, chunkCount, sortedChunksStart } from '../record/record-columns.js';
import { kept } from './kept.js';

// Chunk times read without an array per record from records held in columns (record-columns.ts).
const chunkTimes = new ChunkTimes();

/** Receives the first `n` of `values`, each standing for `weights[i]` equal values (null: 1 each). */
export type WeightedEmit = (values: Float64Array, n: number, weights: Float64Array | null) => void;
/** Calls `emit` with every value, the same batches every time. */
export type WeightedVisitor = (emit: WeightedEmit) => void;

const BATCH = 4096;

interface Shared {
  timeline: SharedTimeline;
  /** Records on step k (addChunkTokens) or on steps k−1 and k (gaps): prefix sums of this at k − lo. */
  spans: Int32Array;
  /** The steps the records touch: lo … hi − 1 (a window's records span a short part of a long run). */
  lo: number;
  hi: number;
}

/**
 * The records' stretches [from, to) of shared timelines, added one by one; `spans()` marks them
 * per timeline in an array covering only the steps they touch (a window's records span a short
 * part of a long run). Typed arrays, not an object per record.
 */
class Stretches {
  private timelines: SharedTimeline[] = [];
  private los: number[] = [];
  private his: number[] = [];
  private which: Int32Array;
  private from: Int32Array;
  private to: Int32Array;
  private n = 0;
  constructor(capacity: number) {
    this.which = new Int32Array(capacity);
    this.from = new Int32Array(capacity);
    this.to = new Int32Array(capacity);
  }
  add(timeline: SharedTimeline, from: number, to: number): void {
    let t = this.timelines.length === 1 && this.timelines[0] === timeline ? 0 : this.timelines.indexOf(timeline);
    if (t < 0) {
      t = this.timelines.push(timeline) - 1;
      this.los.push(from);
      this.his.push(to);
    } else {
      if (from < this.los[t]!) this.los[t] = from;
      if (to > this.his[t]!) this.his[t] = to;
    }
    this.which[this.n] = t;
    this.from[this.n] = from;
    this.to[this.n++] = to;
  }
  spans(): Shared[] {
    const out: Shared[] = this.timelines.map((timeline, t) => ({ timeline, lo: this.los[t]!, hi: this.his[t]!, spans: new Int32Array(this.his[t]! - this.los[t]! + 1) }));
    const { which, from, to } = this;
    for (let i = 0; i < this.n; i++) {
      const g = out[which[i]!]!;
      g.spans[from[i]! - g.lo]!++;
      g.spans[to[i]! - g.lo]!--;
    }
    return out;
  }
}

/**
 * A visitor over the chunk gaps of `records`, `fill` writing one record's gaps (itl.fill) for
 * records without a shared stretch. The per-step weights are counted once, here.
 */
export function chunkGapVisitor(records: readonly RequestRecord[], fill: (r: RequestRecord, out: Float64Array, at: number) => number): WeightedVisitor {
  // The records with their own chunk times: all of them for a run read back (then `records`
  // itself, no copy), and room for the others' stretches only, typed arrays of exactly their number.
  const own = kept(records, (r) => stepStretchOf(r) === null);
  const stretches = new Stretches(records.length - own.length);
  for (let i = 0; own.length < records.length && i < records.length; i++) {
    const s = stepStretchOf(records[i]!);
    if (s === null || s.count < 2) continue;
    // The gap ending at step k counts for k in first + 1 … first + count − 1.
    stretches.add(s.timeline, s.first + 1, s.first + s.count);
  }
  const shared = stretches.spans();
  return (emit) => {
    // Many records' gaps per batch, in record order: the same values in the same order, a call per batch.
    let buf = new Float64Array(BATCH);
    let m = 0;
    for (const r of own) {
      const k = Math.max(0, chunkCount(r) - 1);
      if (m + k > buf.length) {
        if (m > 0) emit(buf, m, null);
        m = 0;
        if (k > buf.length) buf = new Float64Array(k * 2);
      }
      m += fill(r, buf, m);
    }
    if (m > 0) emit(buf, m, null);
    const values = new Float64Array(BATCH);
    const weights = new Float64Array(BATCH);
    for (const { timeline, spans, lo, hi } of shared) {
      let m = 0;
      let n = 0;
      for (let k = Math.max(1, lo); k < Math.min(hi, timeline.length); k++) {
        m += spans[k - lo]!;
        if (m === 0) continue;
        values[n] = timeline.at(k) - timeline.at(k - 1);
        weights[n++] = m;
        if (n === BATCH) {
          emit(values, n, weights);
          n = 0;
        }
      }
      if (n > 0) emit(values, n, weights);
    }
  };
}

/**
 * Adds every chunk's share of its record's output tokens (output_tokens / chunk count) to
 * into[bucketOf(chunk time)]; a record without chunks puts all of them at bucketOf(end_ms).
 * Records on a shared timeline with one token per chunk are counted per step (the step's
 * record count at its bucket): whole numbers, so the sums are the same in any order.
 * `bucketOf` must be non-decreasing (a later time never falls in an earlier bucket).
 */
export function addChunkTokens(records: readonly RequestRecord[], bucketOf: (t: number) => number, into: Float64Array): void {
  const stretches = new Stretches(records.length);
  for (const r of records) {
    const c = chunkCount(r);
    const s = c > 0 && r.output_tokens === c ? stepStretchOf(r) : null;
    if (s === null) addTokens(r, c, c === 0 ? null : chunkTimes.of(r), bucketOf, into);
    else stretches.add(s.timeline, s.first, s.first + s.count);
  }
  for (const { timeline, spans, lo, hi } of stretches.spans()) {
    let m = 0;
    for (let k = lo; k < Math.min(hi, timeline.length); k++) {
      m += spans[k - lo]!;
      if (m !== 0) into[bucketOf(timeline.at(k))]! += m;
    }
  }
}

/** One record's output tokens (not on a shared timeline): over its `c` chunk times `ch`, or at its end when it has none. */
function addTokens(r: RequestRecord, c: number, ch: Float64Array | null, bucketOf: (t: number) => number, into: Float64Array): void {
  if (c === 0 || ch === null) into[bucketOf(r.end_ms)]! += r.output_tokens;
  else spread(ch, c, r.output_tokens / c, bucketOf, into, sortedChunksStart(r) !== undefined);
}

/** Output tokens to spread (addChunkTokens) while visiting chunk gaps: those of the records `take` accepts. */
export interface TokenSpread {
  take: (r: RequestRecord) => boolean;
  bucketOf: (t: number) => number;
  into: Float64Array;
}

/**
 * chunkGapVisitor(gapRecords, fill) whose first visit also does addChunkTokens of the records of
 * `all` that `tokens.take` accepts, each record's chunk times read once for both (the gaps are
 * their differences, what chunkGapsInto gives: `fill` is a chunkGaps metric's, itl.fill): a pass
 * over every chunk of a run saved. Later visits read the gaps alone. `done()` does the spreading
 * if no visit did.
 *
 * Same values in the same order as the two apart, because gapRecords and the token records are
 * both sublists of `all` in its order (checked; else, or when a record of `all` is on a shared
 * timeline, null: the caller visits and spreads apart).
 */
export function gapsSpreadingTokens(
  all: readonly RequestRecord[],
  gapRecords: readonly RequestRecord[],
  fill: (r: RequestRecord, out: Float64Array, at: number) => number,
  tokens: TokenSpread,
): { visit: WeightedVisitor; done(): void } | null {
  let g = 0;
  for (const r of all) {
    if (stepStretchOf(r) !== null) return null;
    if (g < gapRecords.length && gapRecords[g] === r) g++;
  }
  if (g !== gapRecords.length) return null;
  const later = chunkGapVisitor(gapRecords, fill);
  let tokensDone = false;
  const spreadAlone = (): void => {
    for (const r of all) if (tokens.take(r)) addTokens(r, chunkCount(r), chunkCount(r) === 0 ? null : chunkTimes.of(r), tokens.bucketOf, tokens.into);
  };
  const visit: WeightedVisitor = (emit) => {
    if (tokensDone) return later(emit);
    tokensDone = true;
    let buf = new Float64Array(BATCH);
    let m = 0;
    let next = 0;
    for (const r of all) {
      const isGap = next < gapRecords.length && gapRecords[next] === r;
      if (isGap) next++;
      const isTokens = tokens.take(r);
      if (!isGap && !isTokens) continue;
      const c = chunkCount(r);
      const ch = c === 0 ? null : chunkTimes.of(r);
      if (isTokens) addTokens(r, c, ch, tokens.bucketOf, tokens.into);
      if (!isGap || ch === null || c < 2) continue;
      if (m + c - 1 > buf.length) {
        if (m > 0) emit(buf, m, null);
        m = 0;
        if (c - 1 > buf.length) buf = new Float64Array((c - 1) * 2);
      }
      for (let k = 1; k < c; k++) buf[m++] = ch[k]! - ch[k - 1]!;
    }
    if (m > 0) emit(buf, m, null);
  };
  return {
    visit,
    done: () => {
      if (!tokensDone) {
        tokensDone = true;
        spreadAlone();
      }
    },
  };
}

/**
 * into[bucketOf(ch[i])] += w for i = 0 … c − 1, in that order. When the times never go back
 * (`inOrder`: known so; else checked) the chunks of one bucket are a run (bucketOf is
 * non-decreasing): its end is found by bisection, a few bucketOf calls per bucket instead of one
 * per chunk, and its L chunks added as L additions of w in a local — or as one addition of w·L
 * when the bucket holds a whole number and w is whole: then every partial sum is a whole number
 * below 2^53, so each addition is exact and the result the same.
 */
function spread(ch: Float64Array, c: number, w: number, bucketOf: (t: number) => number, into: Float64Array, inOrder: boolean): void {
  let sorted = inOrder;
  if (!sorted) {
    sorted = true;
    for (let i = 1; i < c && sorted; i++) sorted = ch[i]! >= ch[i - 1]!;
  }
  if (!sorted) {
    for (let i = 0; i < c; i++) into[bucketOf(ch[i]!)]! += w;
    return;
  }
  const whole = Number.isInteger(w);
  const lastBucket = bucketOf(ch[c - 1]!);
  let j = 0;
  while (j < c) {
    const b = bucketOf(ch[j]!);
    let end = c;
    if (b !== lastBucket) {
      // The first chunk past bucket b lies in (j, c − 1]: bisect.
      let lo = j + 1;
      let hi = c - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (bucketOf(ch[mid]!) === b) lo = mid + 1;
        else hi = mid;
      }
      end = lo;
    }
    let x = into[b]!;
    const run = end - j;
    if (whole && Number.isInteger(x) && Math.abs(x) + Math.abs(w) * run <= 2 ** 53) x += w * run;
    else for (let i = j; i < end; i++) x += w;
    into[b] = x;
    j = end;
  }
}
