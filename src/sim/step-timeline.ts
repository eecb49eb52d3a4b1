/**
 * Every step end of a virtual-time run, in order: the only times a token can be stamped with.
 * A record's chunk_ms is a stretch of this timeline (one token per step while a sequence
 * decodes), so a long run can keep a record's chunks as (first step, count) instead of a float
 * per token (virtual-records.ts). Stored in fixed pages, so growing never copies or moves what
 * is there, and a stretch inside one page is a view, not a copy.
 *
 *   page 0: [t0 t1 … t65535]  page 1: [t65536 …]     t_i < t_{i+1} (a step takes time)
 */

import { chunkTimeJson } from '../record/jsonl.js';

const PAGE_BITS = 16;
const PAGE = 1 << PAGE_BITS;

export class StepTimeline {
  private readonly pages: Float64Array[] = [];
  private n = 0;
  /**
   * Step ends formatted once each, as one ASCII text "t0,t1,t2,…,": a stretch of steps is then
   * one slice of it (chunkText). `starts[i]`: where step i's text begins; steps 0 … formatted−1
   * are in. A day at 20 req/s is ~2 M steps: ~20 MB of text and 8 MB of starts.
   */
  private text = new Uint8Array(1 << 16);
  private starts = new Int32Array(1 << 12);
  private formatted = 0;
  /** Bytes of `text` in use. */
  private used = 0;

  get length(): number {
    return this.n;
  }

  push(endMs: number): void {
    const p = this.n >>> PAGE_BITS;
    if (p === this.pages.length) this.pages.push(new Float64Array(PAGE));
    this.pages[p]![this.n & (PAGE - 1)] = endMs;
    this.n++;
  }

  at(i: number): number {
    return this.pages[i >>> PAGE_BITS]![i & (PAGE - 1)]!;
  }

  /** Index of the step that ended at exactly `t`, or −1 (binary search: ends strictly increase). */
  indexOf(t: number): number {
    let lo = 0;
    let hi = this.n - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.at(mid);
      if (v < t) lo = mid + 1;
      else if (v > t) hi = mid - 1;
      else return mid;
    }
    return -1;
  }

  /** Ends of steps first … first+count−1: a view when they lie in one page, else a copy. */
  slice(first: number, count: number): Float64Array {
    const p = first >>> PAGE_BITS;
    const off = first & (PAGE - 1);
    if (off + count <= PAGE) return this.pages[p]!.subarray(off, off + count);
    const out = new Float64Array(count);
    for (let k = 0; k < count; k++) out[k] = this.at(first + k);
    return out;
  }

  /**
   * The text records.jsonl gives steps first … first+count−1 (count ≥ 1) as chunk_ms, without
   * its brackets: "t_first,…,t_last", each end formatted once for the whole run
   * (chunkTimeJson). A view, valid until the next call.
   */
  chunkText(first: number, count: number): Uint8Array {
    const last = first + count;
    this.formatUpTo(last);
    const end = last < this.formatted ? this.starts[last]! : this.used;
    return this.text.subarray(this.starts[first]!, end - 1);
  }

  /** chunkText with its brackets, as a string: the chunk_ms JSON array (count ≥ 0). */
  json(first: number, count: number): string {
    return count === 0 ? '[]' : `[${LATIN1.decode(this.chunkText(first, count))}]`;
  }

  /** Formats the ends of steps formatted … last−1 into `text`. */
  private formatUpTo(last: number): void {
    if (last <= this.formatted) return;
    if (this.starts.length < last) this.starts = grown(this.starts, Math.max(this.starts.length * 2, last), Int32Array);
    for (let i = this.formatted; i < last; i++) {
      const t = chunkTimeJson(this.at(i));
      if (this.used + t.length + 1 > this.text.length) this.text = grown(this.text, Math.max(this.text.length * 2, this.used + t.length + 1), Uint8Array);
      this.starts[i] = this.used;
      for (let k = 0; k < t.length; k++) this.text[this.used++] = t.charCodeAt(k);
      this.text[this.used++] = COMMA;
    }
    this.formatted = last;
  }
}

const COMMA = 44;
const LATIN1 = new TextDecoder('latin1');

function grown<A extends Uint8Array | Int32Array>(a: A, size: number, make: new (n: number) => A): A {
  const b = new make(size);
  b.set(a);
  return b;
}
