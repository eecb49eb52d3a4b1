/**
 * Every step end of a virtual-time run, in order: the only times a token can be stamped with.
 * A record's chunk_ms is a stretch of this timeline (one token per step while a sequence
 * decodes), so a long run can keep a record's chunks as (first step, count) instead of a float
 * per token (virtual-records.ts). Stored in fixed pages, so growing never copies or moves what
 * is there, and a stretch inside one page is a view, not a copy.
 *
 *   page 0: [t0 t1 … t65535]  page 1: [t65536 …]     t_i < t_{i+1} (a step takes time)
 */

const PAGE_BITS = 16;
const PAGE = 1 << PAGE_BITS;

/** Step times kept formatted (json()): a ring over the latest steps, which finishing records read. */
const TEXT_RING = 1 << 16;

export class StepTimeline {
  private readonly pages: Float64Array[] = [];
  private n = 0;
  private readonly text = new Array<string>(TEXT_RING);
  private readonly textOf = new Int32Array(TEXT_RING).fill(-1);

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
   * The JSON array text of steps first … first+count−1, each end formatted by `fmt` once for
   * every record that reads it while it is among the latest TEXT_RING steps.
   */
  json(first: number, count: number, fmt: (endMs: number) => string): string {
    let out = '[';
    for (let k = 0; k < count; k++) {
      const i = first + k;
      const slot = i & (TEXT_RING - 1);
      if (this.textOf[slot] !== i) {
        this.text[slot] = fmt(this.at(i));
        this.textOf[slot] = i;
      }
      out += k === 0 ? this.text[slot]! : `,${this.text[slot]!}`;
    }
    return `${out}]`;
  }
}
