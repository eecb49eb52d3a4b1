/**
 * The chunk times of records read back (record-columns.ts), by record position (issue 31). They
 * are most of a run's memory: a default record has 128, so a byte less per chunk is 128 MB at 1M
 * records. Two encodings, chosen per record when it is stored:
 *
 *   gaps     when every time is a whole number of µs (what records.jsonl writes): the first time's
 *            µs in `base`, the last's in `last`, and for each later chunk its gap in µs from the one
 *            before in Uint16Array words: a gap below 0xF000 is one word; below 0xFFF0000 two,
 *            0xF000 + its high 16 bits then its low 16 (a loaded server's gaps are often longer than
 *            61 ms); anything else (chunks that go back, stalls of minutes) the word 0xFFFF then
 *            the gap's float64 bits in 4 words.
 *   doubles  otherwise (base NaN): the times themselves in a Float64Array.
 *
 * Invariants:
 * - A time read back is (µs) / 1000 where µs = base + Σ gaps up to it, summed in doubles from the
 *   first in order; `put` only chooses gaps when that sum gives each chunk's µs exactly, so the
 *   time is the same double as the µs' quotient by 1000 — what JSON.parse gives for the text
 *   (both are the correctly rounded value of the same rational).
 * - A record's words (or doubles) are contiguous in one page, at (page, at); a record that needs
 *   more than a page gets a page of its own.
 * - count, first and the "≤ t" count keep the meaning they have over the decoded times.
 */
import { f64Column, i32Column } from './paged-column.js';

const PAGE = 1 << 20;
/** Gaps below this take one word. */
const ONE_WORD = 0xf000;
/** Gaps below this take two: ONE_WORD + high 16 bits, then the low 16. */
const TWO_WORDS = 0xfff0000;
/** A first word that says the gap's float64 bits follow in 4 words. */
const ESCAPE = 0xffff;

/** How many words gap g takes. */
function wordsOf(g: number): number {
  if ((g | 0) !== g || g < 0) return 5;
  return g < ONE_WORD ? 1 : g < TWO_WORDS ? 2 : 5;
}

/** The bits of one double as 4 Uint16 words (the same layout both ways, so endianness never matters). */
const bits = new Float64Array(1);
const bitWords = new Uint16Array(bits.buffer);

/** Pages of values; see the invariant on contiguity. */
class Pages<A extends Float64Array | Uint16Array> {
  readonly pages: A[] = [];
  /** Offset of the last reservation in its page. */
  at = 0;
  private used = PAGE;
  constructor(private readonly make: (n: number) => A) {}
  /** Room for n values: its page, and sets `at` to the offset. */
  reserve(n: number): number {
    if (this.used + n > (this.pages.at(-1)?.length ?? 0)) {
      this.pages.push(this.make(Math.max(PAGE, n)));
      this.used = 0;
    }
    this.at = this.used;
    this.used += n;
    return this.pages.length - 1;
  }
}

export class ChunkStore {
  private readonly count = i32Column();
  private readonly page = i32Column();
  private readonly at = i32Column();
  /** µs of the first chunk; NaN: the record's times are in `doubles`. */
  private readonly base = f64Column();
  /** µs of the last chunk (gaps only): a count up to a time past it needs no decoding. */
  private readonly last = f64Column();
  private readonly words = new Pages((n) => new Uint16Array(n));
  private readonly doubles = new Pages((n) => new Float64Array(n));
  private scratch = new Float64Array(256);

  /**
   * Stores record i's chunk times given as whole µs (the first `count` of `micros`; their times
   * are micros / 1000). Returns whether they never go back.
   */
  putMicros(i: number, micros: Float64Array, count: number): boolean {
    this.count.set(i, count);
    if (count === 0) return true;
    const base = micros[0]!;
    let sorted = true;
    let words = 0;
    let acc = base;
    for (let k = 1; k < count; k++) {
      const m = micros[k]!;
      if (m < micros[k - 1]!) sorted = false;
      const g = m - acc;
      words += wordsOf(g);
      acc += g;
      // A sum that is not exact (µs beyond 2^53) would read back another time.
      if (acc !== m) {
        const times = microsToTimes(micros, count);
        this.putDoubleTimes(i, times);
        return isSorted(times, count);
      }
    }
    const page = this.words.reserve(words);
    const p = this.words.pages[page]!;
    let w = this.words.at;
    acc = base;
    for (let k = 1; k < count; k++) {
      const g = micros[k]! - acc;
      acc += g;
      const words = wordsOf(g);
      if (words === 1) p[w++] = g;
      else if (words === 2) {
        p[w++] = ONE_WORD + (g >>> 16);
        p[w++] = g & 0xffff;
      } else {
        p[w++] = ESCAPE;
        bits[0] = g;
        for (let b = 0; b < 4; b++) p[w++] = bitWords[b]!;
      }
    }
    this.page.set(i, page);
    this.at.set(i, this.words.at);
    this.base.set(i, base);
    this.last.set(i, micros[count - 1]!);
    // Whole µs in order give doubles in order (k ↦ k / 1000 correctly rounded is monotone).
    return sorted;
  }

  /** Stores record i's chunk times given as doubles. Returns whether they never go back. */
  putTimes(i: number, c: Float64Array): boolean {
    // Whole µs: k / 1000 === v ⇔ v is the double of k µs.
    if (c.length > this.scratch.length) this.scratch = new Float64Array(c.length * 2);
    const m = this.scratch;
    for (let k = 0; k < c.length; k++) {
      m[k] = Math.round(c[k]! * 1000);
      if (!(Number.isSafeInteger(m[k]) && m[k]! / 1000 === c[k])) {
        this.count.set(i, c.length);
        this.putDoubleTimes(i, c);
        return isSorted(c, c.length);
      }
    }
    return this.putMicros(i, m, c.length);
  }

  private putDoubleTimes(i: number, c: Float64Array): void {
    if (c.length === 0) return;
    const page = this.doubles.reserve(c.length);
    this.doubles.pages[page]!.set(c, this.doubles.at);
    this.page.set(i, page);
    this.at.set(i, this.doubles.at);
    this.base.set(i, NaN);
  }

  /** How many chunk times record i has. */
  countOf(i: number): number {
    return this.count.get(i);
  }

  /** Record i's first chunk time (it has at least one). */
  first(i: number): number {
    const base = this.base.get(i);
    return Number.isNaN(base) ? this.doubles.pages[this.page.get(i)]![this.at.get(i)]! : base / 1000;
  }

  /**
   * How many of record i's chunk times are ≤ t, for a record whose times never go back: the
   * same comparisons of the same doubles a loop over all of them makes, so the same count; a
   * time before the first or from the last on needs no decoding.
   */
  countAtMost(i: number, t: number): number {
    const n = this.count.get(i);
    if (n === 0) return 0;
    const page = this.page.get(i);
    const at = this.at.get(i);
    const base = this.base.get(i);
    if (Number.isNaN(base)) {
      const p = this.doubles.pages[page]!;
      if (p[at + n - 1]! <= t) return n;
      let lo = 0;
      let hi = n;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (p[at + mid]! <= t) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    }
    if (this.last.get(i) / 1000 <= t) return n;
    if (!(base / 1000 <= t)) return 0;
    const p = this.words.pages[page]!;
    let w = at;
    let acc = base;
    for (let k = 1; k < n; k++) {
      const g = p[w]!;
      if (g < ONE_WORD) {
        acc += g;
        w++;
      } else if (g !== ESCAPE) {
        acc += (g - ONE_WORD) * 0x10000 + p[w + 1]!;
        w += 2;
      } else {
        acc += escapedGap(p, w);
        w += 5;
      }
      if (!(acc / 1000 <= t)) return k;
    }
    return n;
  }

  /** Record i's chunk times: decoded into `out` (≥ its count), or a view of the stored doubles. */
  times(i: number, out: Float64Array): Float64Array {
    const n = this.count.get(i);
    if (n === 0) return out.subarray(0, 0);
    const page = this.page.get(i);
    const at = this.at.get(i);
    const base = this.base.get(i);
    if (Number.isNaN(base)) return this.doubles.pages[page]!.subarray(at, at + n);
    const p = this.words.pages[page]!;
    let w = at;
    let acc = base;
    out[0] = base / 1000;
    for (let k = 1; k < n; k++) {
      const g = p[w]!;
      if (g < ONE_WORD) {
        acc += g;
        w++;
      } else if (g !== ESCAPE) {
        acc += (g - ONE_WORD) * 0x10000 + p[w + 1]!;
        w += 2;
      } else {
        acc += escapedGap(p, w);
        w += 5;
      }
      out[k] = acc / 1000;
    }
    return out.subarray(0, n);
  }

  /**
   * The gaps between record i's consecutive chunk times, written into `out` from `at` (room for
   * count − 1): each the difference of the two doubles `times` gives. Returns how many.
   */
  gaps(i: number, out: Float64Array, at: number): number {
    const n = this.count.get(i);
    if (n < 2) return 0;
    const page = this.page.get(i);
    const off = this.at.get(i);
    const base = this.base.get(i);
    if (Number.isNaN(base)) {
      const p = this.doubles.pages[page]!;
      for (let k = 1; k < n; k++) out[at + k - 1] = p[off + k]! - p[off + k - 1]!;
      return n - 1;
    }
    const p = this.words.pages[page]!;
    let w = off;
    let acc = base;
    let prev = base / 1000;
    for (let k = 1; k < n; k++) {
      const g = p[w]!;
      if (g < ONE_WORD) {
        acc += g;
        w++;
      } else if (g !== ESCAPE) {
        acc += (g - ONE_WORD) * 0x10000 + p[w + 1]!;
        w += 2;
      } else {
        acc += escapedGap(p, w);
        w += 5;
      }
      const t = acc / 1000;
      out[at + k - 1] = t - prev;
      prev = t;
    }
    return n - 1;
  }
}

/** The gap of the escape at word w. */
function escapedGap(p: Uint16Array, w: number): number {
  for (let b = 0; b < 4; b++) bitWords[b] = p[w + 1 + b]!;
  return bits[0]!;
}

function isSorted(c: Float64Array, n: number): boolean {
  for (let k = 1; k < n; k++) if (!(c[k]! >= c[k - 1]!)) return false;
  return true;
}

export function microsToTimes(micros: Float64Array, count: number): Float64Array {
  const out = new Float64Array(count);
  for (let k = 0; k < count; k++) out[k] = micros[k]! / 1000;
  return out;
}
