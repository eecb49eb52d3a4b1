/**
 * What the columnar record stores share (record-columns.ts for records read back,
 * sim/virtual-records.ts for a virtual run's): a growable typed column in fixed pages, so growing
 * never copies what is there (a doubling array would hold the old and the new copy at once), and
 * a table of the few distinct strings of a run (tasks, sessions, finish reasons).
 */
const PAGE_BITS = 16;
const PAGE = 1 << PAGE_BITS;

/** Integer column values that stand for null. */
export const NULL_INT = -1;

export class PagedColumn<A extends Float64Array | Int32Array | Uint8Array | Int8Array> {
  private readonly pages: A[] = [];
  constructor(private readonly make: (n: number) => A) {}
  set(i: number, v: number): void {
    const p = i >>> PAGE_BITS;
    while (p >= this.pages.length) this.pages.push(this.make(PAGE));
    this.pages[p]![i & (PAGE - 1)] = v;
  }
  get(i: number): number {
    return this.pages[i >>> PAGE_BITS]![i & (PAGE - 1)]!;
  }
}

export const f64Column = () => new PagedColumn((n) => new Float64Array(n));
export const i32Column = () => new PagedColumn((n) => new Int32Array(n));

/** Small int ↔ string table; null is NULL_INT. */
export class Interned {
  private readonly ids = new Map<string, number>();
  private readonly values: string[] = [];
  id(s: string | null): number {
    if (s === null) return NULL_INT;
    let k = this.ids.get(s);
    if (k === undefined) {
      k = this.values.length;
      this.ids.set(s, k);
      this.values.push(s);
    }
    return k;
  }
  value(k: number): string | null {
    return k === NULL_INT ? null : this.values[k]!;
  }
}
