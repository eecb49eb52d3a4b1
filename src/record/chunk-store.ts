/**
 * The chunk times of records read back (record-columns.ts), by record position (issue 31). They
 * are most of a run's memory: a default record has 128, so a byte less per chunk is 128 MB at 1M
 * records. Two encodings, chosen per record when it is stored:
 *
 *   gaps     when every time is a whole number of µs (what records.jsonl writes): the first time's
 *            µs in `base`, the last's in `last`, and for each later chunk its gap g in µs from the
 *            one before, coded in bytes against 4 slots of recent gaps: under load a stream's
 *            gaps take a few values again and again (one step, a step plus a prefill, …), so a
 *            gap is mostly near one of a few recent ones.
 *              0jjzzzzz            g = recent[j] + unzig(z)           (z < 32: |d| ≤ 16)
 *              10jjzzzz zzzzzzzz   g = recent[j] + unzig(z)           (z < 4096: |d| ≤ 2048)
 *              hhhhhhhh x y        g = (h − 0xC0)·2^16 + x·2^8 + y    (0xC0 ≤ h < 0xFF: g < 63·2^16)
 *              0xFF + 8 bytes      g's float64 bits (a gap that goes back, a stall of over 4 s)
 *            unzig(z) = z/2 for even z, −(z+1)/2 for odd. A gap coded against recent[j] takes
 *            its slot; any other takes slot `next`, which then moves on by one (mod 4). Every
 *            record starts with four zero slots and next = 0. (Slots updated in place, not a
 *            list kept in recency order: the decoder indexes instead of shifting, at the same size.)
 *   doubles  otherwise (base NaN): the times themselves in a Float64Array.
 *   stretch  (page STRETCH, set by shareTimeline once a run is read) times at .. at + count − 1 of
 *            the store's one shared timeline of step times (record/shared-timeline.ts): what
 *            most records of a virtual run are. base and last keep their meaning.
 *
 * Invariants:
 * - A time read back is (µs) / 1000 where µs = base + Σ gaps up to it, summed in doubles from the
 *   first in order; a gap is only coded against recent[j] when both are whole numbers, so the
 *   residual and the sum back are exact (IEEE operations round correctly, and an integer below
 *   2^53 is a double). `put` only chooses gaps when the sum gives each chunk's µs exactly, so the
 *   time is the same double as the µs' quotient by 1000 — what JSON.parse gives for the text
 *   (both are the correctly rounded value of the same rational).
 * - A record's bytes (or doubles) are contiguous in one page, at (page, at); a record that needs
 *   more than a page gets a page of its own.
 * - count, first and the "≤ t" count keep the meaning they have over the decoded times.
 * - encodeGaps is the one writer of the byte format; decodeTimes and decodeGaps (the same loop,
 *   ending in times or in their differences) its readers.
 * - A stretch record's times are the timeline's doubles at its steps, each the µs / 1000 of the
 *   µs it was coded with (checked value for value when it was found): `times` and `gaps` give the
 *   same doubles as before; its bytes are dropped from the pages.
 */
import { f64Column, i32Column, PAGE_VALUES, PagedColumn, type ColumnArray } from './paged-column.js';
import { findSharedTimeline, type SharedTimelineFound } from './shared-timeline.js';
import type { SharedTimeline, StepStretch } from './step-stretch.js';

/**
 * A store's contents for the column file (store/records-columns-file.ts): typed sections, each
 * written as its parts one after another, and the lengths the reader needs to lay them out again.
 */
export interface StoredSection {
  name: string;
  parts: ColumnArray[];
  /** A paged column's values (filledColumn reads it back): one of integers may be kept as its one value when all are equal. */
  paged?: boolean;
}

/** The column file's reader of the sections. */
export interface SectionSource {
  /** Fills `into`'s first `count` values from the section `name`. */
  fill(name: string, into: ColumnArray, count: number): void;
  /** The one value of every position of the paged section `name`, when it was kept so. */
  constant(name: string): number | undefined;
}

const PAGE = 1 << 20;
/** First bytes from here on start a whole gap: 3 bytes, or the escape. */
const LITERAL = 0xc0;
/** The page of a record whose times are a stretch of the shared timeline. */
const STRETCH = -1;
/** A shared timeline is kept only when it holds at most this share of the chunk times it stands for. */
const SHARED_AT_MOST = 0.5;
/** A first byte that says the gap's float64 bits follow in 8 bytes. */
const ESCAPE = 0xff;
/** Gaps below this fit a 3-byte literal. */
const LITERAL_LIMIT = (ESCAPE - LITERAL) * 0x10000;
/** The most bytes one gap takes. */
const MAX_GAP_BYTES = 9;

/** The bits of one double as 8 bytes (the same layout both ways, so endianness never matters). */
const bits = new Float64Array(1);
const bitBytes = new Uint8Array(bits.buffer);

/** Pages of values; see the invariant on contiguity. */
class Pages<A extends Float64Array | Uint8Array> {
  readonly pages: A[] = [];
  /** Offset of the last reservation in its page. */
  at = 0;
  private used = PAGE;
  constructor(private readonly make: (n: number) => A) {}
  /** Each page as far as it is used: what the column file writes. */
  usedParts(): A[] {
    return this.pages.map((p, k) => (k === this.pages.length - 1 ? (p.subarray(0, Math.min(this.used, p.length)) as A) : p));
  }
  /** Pages as views of `whole`, cut at `lengths`; the next reservation starts a new page. */
  restore(whole: A, lengths: readonly number[]): void {
    let at = 0;
    for (const n of lengths) {
      this.pages.push(whole.subarray(at, at + n) as A);
      at += n;
    }
    this.used = lengths.at(-1) ?? PAGE;
  }
  /** Room for up to n values from `at` in the page it returns; `commit` says how many were used. */
  reserve(n: number): number {
    if (this.used + n > (this.pages.at(-1)?.length ?? 0)) {
      this.pages.push(this.make(Math.max(PAGE, n)));
      this.used = 0;
    }
    this.at = this.used;
    return this.pages.length - 1;
  }
  /** The last reservation kept n values. A page made for one large record is cut to what it holds. */
  commit(n: number): void {
    this.used = this.at + n;
    const last = this.pages.length - 1;
    const p = this.pages[last]!;
    if (p.length > PAGE && this.at === 0 && n < p.length) {
      this.pages[last] = p.slice(0, n) as A;
      this.used = PAGE;
    }
  }
}

/** Whether the gaps the last encodeGaps wrote never go back. */
let encodedSorted = true;
/** The decoders' 4 recent-gap slots (each decoder resets them for its record). */
const recent = new Float64Array(4);

/**
 * Writes the gaps of micros[0..count) in the byte format above from byte w of p (room for
 * MAX_GAP_BYTES a gap); returns where they end, or −1 when a value is not a whole number or the
 * sum of the gaps would not give it back exactly (µs beyond 2^53): then nothing is kept. Sets
 * encodedSorted. The one writer of the format (see the invariants); exported for its test.
 */
export function encodeGaps(micros: Float64Array, count: number, p: Uint8Array, w: number): number {
  let r0 = 0;
  let r1 = 0;
  let r2 = 0;
  let r3 = 0;
  let next = 0;
  let prev = micros[0]!;
  let sorted = true;
  for (let k = 1; k < count; k++) {
    const m = micros[k]!;
    const g = m - prev;
    // Whole µs summed back exactly: the residuals below are exact too (see the invariants).
    if (!(Number.isInteger(m) && prev + g === m)) return -1;
    if (g < 0) sorted = false;
    prev = m;
    // The nearest slot (ties: the lowest), then its residual's zig-zag (0, −1, 1, −2, … ↦ 0, 1, 2, 3, …).
    const d0 = g - r0;
    const d1 = g - r1;
    const d2 = g - r2;
    const d3 = g - r3;
    let j = 0;
    let d = d0;
    let a = Math.abs(d0);
    if (Math.abs(d1) < a) {
      j = 1;
      d = d1;
      a = Math.abs(d1);
    }
    if (Math.abs(d2) < a) {
      j = 2;
      d = d2;
      a = Math.abs(d2);
    }
    if (Math.abs(d3) < a) {
      j = 3;
      d = d3;
      a = Math.abs(d3);
    }
    const z = d >= 0 ? d * 2 : a * 2 - 1;
    if (z < 0x1000) {
      if (z < 0x20) p[w++] = (j << 5) | z;
      else {
        p[w++] = 0x80 | (j << 4) | (z >>> 8);
        p[w++] = z & 0xff;
      }
      if (j === 0) r0 = g;
      else if (j === 1) r1 = g;
      else if (j === 2) r2 = g;
      else r3 = g;
      continue;
    }
    if (g >= 0 && g < LITERAL_LIMIT) {
      p[w++] = LITERAL + (g >>> 16);
      p[w++] = (g >>> 8) & 0xff;
      p[w++] = g & 0xff;
    } else {
      p[w++] = ESCAPE;
      bits[0] = g;
      for (let b = 0; b < 8; b++) p[w++] = bitBytes[b]!;
    }
    if (next === 0) r0 = g;
    else if (next === 1) r1 = g;
    else if (next === 2) r2 = g;
    else r3 = g;
    next = (next + 1) & 3;
  }
  encodedSorted = sorted;
  return w;
}

/**
 * Decodes n times (µs / unit) of a gaps record from byte w of p into out[0..n): out[0] is base /
 * unit, each later one (base + the gaps up to it, summed in order) / unit. unit 1000 gives the
 * times in ms; 1 their µs (exact: whole numbers below 2^53).
 */
function decodeTimes(p: Uint8Array, w: number, n: number, base: number, out: Float64Array, unit = 1000): void {
  const r = recent.fill(0);
  let next = 0;
  let acc = base;
  out[0] = base / unit;
  for (let k = 1; k < n; k++) {
    const b = p[w]!;
    let g: number;
    if (b < LITERAL) {
      let j: number;
      let z: number;
      if (b < 0x80) {
        j = b >>> 5;
        z = b & 0x1f;
        w++;
      } else {
        j = (b >>> 4) & 3;
        z = ((b & 0xf) << 8) | p[w + 1]!;
        w += 2;
      }
      g = r[j]! + ((z >>> 1) ^ -(z & 1));
      r[j] = g;
    } else {
      if (b !== ESCAPE) {
        g = (b - LITERAL) * 0x10000 + ((p[w + 1]! << 8) | p[w + 2]!);
        w += 3;
      } else {
        for (let q = 0; q < 8; q++) bitBytes[q] = p[w + 1 + q]!;
        g = bits[0]!;
        w += 9;
      }
      r[next] = g;
      next = (next + 1) & 3;
    }
    acc += g;
    out[k] = acc / unit;
  }
}

/** Where the n − 1 gaps of a record coded from byte w of p end (each code's length is in its first byte). */
function gapBytesEnd(p: Uint8Array, w: number, n: number): number {
  for (let k = 1; k < n; k++) {
    const b = p[w]!;
    w += b < 0x80 ? 1 : b < LITERAL ? 2 : b < ESCAPE ? 3 : MAX_GAP_BYTES;
  }
  return w;
}

/**
 * decodeTimes' times' differences, t[k] − t[k − 1] for k ≥ 1, into out from `at`: the same
 * decoding (kept in step with it, and tested against the same oracle), without writing the times
 * (the metrics' passes visit every gap two or three times).
 */
function decodeGaps(p: Uint8Array, w: number, n: number, base: number, out: Float64Array, at: number): void {
  const r = recent.fill(0);
  let next = 0;
  let acc = base;
  let prev = base / 1000;
  for (let k = 1; k < n; k++) {
    const b = p[w]!;
    let g: number;
    if (b < LITERAL) {
      let j: number;
      let z: number;
      if (b < 0x80) {
        j = b >>> 5;
        z = b & 0x1f;
        w++;
      } else {
        j = (b >>> 4) & 3;
        z = ((b & 0xf) << 8) | p[w + 1]!;
        w += 2;
      }
      g = r[j]! + ((z >>> 1) ^ -(z & 1));
      r[j] = g;
    } else {
      if (b !== ESCAPE) {
        g = (b - LITERAL) * 0x10000 + ((p[w + 1]! << 8) | p[w + 2]!);
        w += 3;
      } else {
        for (let q = 0; q < 8; q++) bitBytes[q] = p[w + 1 + q]!;
        g = bits[0]!;
        w += 9;
      }
      r[next] = g;
      next = (next + 1) & 3;
    }
    acc += g;
    const t = acc / 1000;
    out[at + k - 1] = t - prev;
    prev = t;
  }
}

const I32 = (n: number) => new Int32Array(n);
const F64 = (n: number) => new Float64Array(n);

/** A column of n values read from the section `name` into whole pages. */
export function filledColumn<A extends ColumnArray>(make: (n: number) => A, name: string, n: number, src: SectionSource): PagedColumn<A> {
  const value = src.constant(name);
  if (value !== undefined) return PagedColumn.constant(make, value, n);
  const whole = make(Math.ceil(n / PAGE_VALUES) * PAGE_VALUES);
  src.fill(name, whole, n);
  return PagedColumn.over(make, whole);
}

export class ChunkStore {
  private readonly count: PagedColumn<Int32Array>;
  private readonly page: PagedColumn<Int32Array>;
  private readonly at: PagedColumn<Int32Array>;
  /** µs of the first chunk; NaN: the record's times are in `doubles`. */
  private readonly base: PagedColumn<Float64Array>;
  /** µs of the last chunk (gaps only): a count up to a time past it needs no decoding. */
  private readonly last: PagedColumn<Float64Array>;
  private bytes = new Pages((n) => new Uint8Array(n));
  /** The step times stretch records are on (shareTimeline). */
  private shared: StoredTimeline | null = null;
  private readonly doubles = new Pages((n) => new Float64Array(n));
  private scratch = new Float64Array(256);
  private decoded = new Float64Array(256);

  /** An empty store, or (`stored`) the one the column file holds for n records. */
  constructor(stored?: { n: number; pages: ChunkPages; src: SectionSource }) {
    if (!stored) {
      this.count = i32Column();
      this.page = i32Column();
      this.at = i32Column();
      this.base = f64Column();
      this.last = f64Column();
      return;
    }
    const { n, pages, src } = stored;
    this.count = filledColumn(I32, 'chunk_count', n, src);
    this.page = filledColumn(I32, 'chunk_page', n, src);
    this.at = filledColumn(I32, 'chunk_at', n, src);
    this.base = filledColumn(F64, 'chunk_base', n, src);
    this.last = filledColumn(F64, 'chunk_last', n, src);
    const bytes = new Uint8Array(sum(pages.bytes));
    src.fill('chunk_bytes', bytes, bytes.length);
    this.bytes.restore(bytes, pages.bytes);
    const doubles = new Float64Array(sum(pages.doubles));
    src.fill('chunk_doubles', doubles, doubles.length);
    this.doubles.restore(doubles, pages.doubles);
    if (pages.timeline > 0) {
      const ms = new Float64Array(pages.timeline);
      src.fill('chunk_timeline', ms, ms.length);
      this.shared = new StoredTimeline(ms);
    }
  }

  /** The first n records' chunk times as the column file's sections, and their page lengths. */
  stored(n: number): { sections: StoredSection[]; pages: ChunkPages } {
    const bytes = this.bytes.usedParts();
    const doubles = this.doubles.usedParts();
    return {
      sections: [
        { name: 'chunk_count', parts: this.count.prefix(n), paged: true },
        { name: 'chunk_page', parts: this.page.prefix(n), paged: true },
        { name: 'chunk_at', parts: this.at.prefix(n), paged: true },
        { name: 'chunk_base', parts: this.base.prefix(n), paged: true },
        { name: 'chunk_last', parts: this.last.prefix(n), paged: true },
        { name: 'chunk_bytes', parts: bytes },
        { name: 'chunk_doubles', parts: doubles },
        ...(this.shared ? [{ name: 'chunk_timeline', parts: [this.shared.ms] }] : []),
      ],
      pages: { bytes: bytes.map((p) => p.length), doubles: doubles.map((p) => p.length), timeline: this.shared?.length ?? 0 },
    };
  }

  /**
   * Stores record i's chunk times given as whole µs (the first `count` of `micros`; their times
   * are micros / 1000). Returns whether they never go back.
   */
  putMicros(i: number, micros: Float64Array, count: number): boolean {
    this.count.set(i, count);
    if (count === 0) return true;
    const base = micros[0]!;
    if (Number.isInteger(base)) {
      const page = this.bytes.reserve((count - 1) * MAX_GAP_BYTES);
      const at = this.bytes.at;
      const end = encodeGaps(micros, count, this.bytes.pages[page]!, at);
      if (end >= 0) {
        this.bytes.commit(end - at);
        this.page.set(i, this.bytes.pages.length - 1);
        this.at.set(i, at);
        this.base.set(i, base);
        this.last.set(i, micros[count - 1]!);
        // Whole µs in order give doubles in order (k ↦ k / 1000 correctly rounded is monotone).
        return encodedSorted;
      }
    }
    const times = microsToTimes(micros, count);
    this.putDoubleTimes(i, times);
    return isSorted(times, count);
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
    this.doubles.commit(c.length);
    this.page.set(i, page);
    this.at.set(i, this.doubles.at);
    this.base.set(i, NaN);
  }

  /** Bytes held by the gap pages (a benchmark's figure). */
  gapBytes(): number {
    let n = 0;
    for (const p of this.bytes.pages) n += p.byteLength;
    return n;
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

  /** Record i's chunk times as a stretch of the shared timeline, or null when they are its own. */
  stretch(i: number): StepStretch | null {
    if (this.shared === null || this.page.get(i) !== STRETCH) return null;
    return { timeline: this.shared, first: this.at.get(i), count: this.count.get(i) };
  }

  /**
   * Finds the step timeline the first n records share (record/shared-timeline.ts) and keeps
   * those on it as stretches, dropping their bytes: for a virtual run, most of its records and
   * of the chunk memory. Kept only when keepsTimeline says so (records that share few times stay
   * as they were). Once per store, before any record view's stretch is read; `stored(i)`:
   * whether record i's times are in this store. Returns how many records became stretches.
   *
   * The candidates are the records stored as gaps with two times or more, in order: the ones
   * `timelineCandidate` tells a builder that has their µs before storing them (putStretch,
   * adoptTimeline), so that it ends with this same store.
   */
  shareTimeline(n: number, stored: (i: number) => boolean): number {
    if (this.shared !== null) return 0;
    const cand = new Int32Array(n);
    let m = 0;
    for (let i = 0; i < n; i++) if (stored(i) && this.count.get(i) >= 2 && this.page.get(i) >= 0 && !Number.isNaN(this.base.get(i))) cand[m++] = i;
    const found = findSharedTimeline({
      n: m,
      firstMicros: (c) => this.base.get(cand[c]!),
      count: (c) => this.count.get(cand[c]!),
      decodeMicros: (c, out) => {
        const i = cand[c]!;
        decodeTimes(this.bytes.pages[this.page.get(i)]!, this.at.get(i), this.count.get(i), this.base.get(i), out, 1);
      },
    });
    if (!keepsTimeline(found)) return 0;
    for (let c = 0; c < m; c++) {
      const first = found.first[c]!;
      if (first < 0) continue;
      this.page.set(cand[c]!, STRETCH);
      this.at.set(cand[c]!, first);
    }
    this.adoptTimeline(n, stored, found.micros);
    return found.found;
  }

  /**
   * Stores record i as steps first … first + count − 1 of the timeline adoptTimeline will take,
   * its µs from base to last: for a builder that found the timeline itself, over the candidates
   * shareTimeline would have (then the store ends the same).
   */
  putStretch(i: number, count: number, first: number, base: number, last: number): void {
    this.count.set(i, count);
    this.page.set(i, STRETCH);
    this.at.set(i, first);
    this.base.set(i, base);
    this.last.set(i, last);
  }

  /**
   * Takes `micros` (whole µs) as the shared timeline of the stretch records, and copies the bytes
   * of the records left on gaps into fresh pages, in order (their layout then depends on those
   * records alone: the same whether the others were ever coded).
   */
  adoptTimeline(n: number, stored: (i: number) => boolean, micros: Float64Array): void {
    const ms = micros;
    for (let k = 0; k < ms.length; k++) ms[k] = ms[k]! / 1000;
    const kept = new Pages((m) => new Uint8Array(m));
    const old = this.bytes.pages;
    for (let i = 0; i < n; i++) {
      if (!stored(i)) continue;
      const count = this.count.get(i);
      if (count === 0 || this.page.get(i) === STRETCH || Number.isNaN(this.base.get(i))) continue;
      const from = old[this.page.get(i)]!;
      const at = this.at.get(i);
      const len = gapBytesEnd(from, at, count) - at;
      const page = kept.reserve(len);
      kept.pages[page]!.set(from.subarray(at, at + len), kept.at);
      kept.commit(len);
      this.page.set(i, page);
      this.at.set(i, kept.at);
    }
    this.bytes = kept;
    this.shared = new StoredTimeline(ms);
  }

  /**
   * How many of record i's chunk times are ≤ t, for a record whose times never go back: the
   * same comparisons of the same doubles a loop over all of them makes, so the same count; a
   * time before the first or from the last on needs no decoding.
   */
  countAtMost(i: number, t: number): number {
    const n = this.count.get(i);
    if (n === 0) return 0;
    const base = this.base.get(i);
    if (!Number.isNaN(base)) {
      if (this.last.get(i) / 1000 <= t) return n;
      if (!(base / 1000 <= t)) return 0;
    }
    const p = this.times(i, this.decodedRoom(n));
    if (p[n - 1]! <= t) return n;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (p[mid]! <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Record i's chunk times: decoded into `out` (≥ its count), or a view of the stored doubles. */
  times(i: number, out: Float64Array): Float64Array {
    const n = this.count.get(i);
    if (n === 0) return out.subarray(0, 0);
    const page = this.page.get(i);
    const at = this.at.get(i);
    const base = this.base.get(i);
    if (page === STRETCH) return this.shared!.ms.subarray(at, at + n);
    if (Number.isNaN(base)) return this.doubles.pages[page]!.subarray(at, at + n);
    decodeTimes(this.bytes.pages[page]!, at, n, base, out);
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
    if (page === STRETCH || Number.isNaN(base)) {
      const p = page === STRETCH ? this.shared!.ms : this.doubles.pages[page]!;
      for (let k = 1; k < n; k++) out[at + k - 1] = p[off + k]! - p[off + k - 1]!;
    } else decodeGaps(this.bytes.pages[page]!, off, n, base, out, at);
    return n - 1;
  }

  private decodedRoom(n: number): Float64Array {
    if (n > this.decoded.length) this.decoded = new Float64Array(n * 2);
    return this.decoded;
  }
}

/** Whether a timeline found is worth keeping: it holds at most SHARED_AT_MOST of the chunk times it stands for. */
export function keepsTimeline(found: SharedTimelineFound): boolean {
  return found.found > 0 && found.micros.length <= found.chunks * SHARED_AT_MOST;
}

/**
 * Whether putMicros keeps these µs as gaps, not doubles (every one whole, the sum of the gaps
 * giving each back): with two or more, such a record is one shareTimeline looks at.
 */
export function storedAsGaps(micros: Float64Array, count: number): boolean {
  if (count === 0 || !Number.isInteger(micros[0])) return false;
  for (let k = 1; k < count; k++) {
    const m = micros[k]!;
    const prev = micros[k - 1]!;
    if (!(Number.isInteger(m) && prev + (m - prev) === m)) return false;
  }
  return true;
}

/** The used length of each page of chunk bytes and of chunk doubles, in order, and the shared timeline's length. */
export interface ChunkPages {
  bytes: number[];
  doubles: number[];
  timeline: number;
}

/** The step times (ms) records share, as record/step-stretch.ts reads a timeline. */
class StoredTimeline implements SharedTimeline {
  constructor(readonly ms: Float64Array) {}
  get length(): number {
    return this.ms.length;
  }
  at(i: number): number {
    return this.ms[i]!;
  }
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

function isSorted(c: Float64Array, n: number): boolean {
  for (let k = 1; k < n; k++) if (!(c[k]! >= c[k - 1]!)) return false;
  return true;
}

export function microsToTimes(micros: Float64Array, count: number): Float64Array {
  const out = new Float64Array(count);
  for (let k = 0; k < count; k++) out[k] = micros[k]! / 1000;
  return out;
}
