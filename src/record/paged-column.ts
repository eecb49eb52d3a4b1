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

/** Values per page (the column file keeps this layout: store/records-columns-file.ts). */
export const PAGE_VALUES = PAGE;

export type ColumnArray = Float64Array | Int32Array | Uint8Array | Int8Array;

export class PagedColumn<A extends ColumnArray> {
  private readonly pages: A[] = [];
  constructor(private readonly make: (n: number) => A) {}

  /**
   * The column over `whole`, a typed array of whole pages (its length a multiple of PAGE_VALUES),
   * whose pages become views of it: the column file reads a column into one array, uncopied.
   */
  static over<A extends ColumnArray>(make: (n: number) => A, whole: A): PagedColumn<A> {
    const c = new PagedColumn(make);
    for (let at = 0; at < whole.length; at += PAGE) c.pages.push(whole.subarray(at, at + PAGE) as A);
    return c;
  }

  /**
   * A column of n positions all holding `value`, its pages one shared page: for reading only (a
   * `set` would write every page), what the column file loads for a column whose values are all equal.
   */
  static constant<A extends ColumnArray>(make: (n: number) => A, value: number, n: number): PagedColumn<A> {
    const c = new PagedColumn(make);
    const page = make(PAGE);
    page.fill(value);
    for (let at = 0; at < n; at += PAGE) c.pages.push(page);
    return c;
  }

  /**
   * The first n values as views of its pages, in order (a page never set comes as zeros, what
   * `get` gives for positions never set): what the column file writes and `over` reads back.
   */
  prefix(n: number): A[] {
    const out: A[] = [];
    for (let p = 0; p * PAGE < n; p++) out.push((this.pages[p] ?? this.make(PAGE)).subarray(0, Math.min(PAGE, n - p * PAGE)) as A);
    return out;
  }

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
  /** Every string, by id (the column file keeps them so). */
  all(): readonly string[] {
    return this.values;
  }
  /** The table holding `values` with ids 0, 1, …. */
  static of(values: readonly string[]): Interned {
    const t = new Interned();
    for (const v of values) t.id(v);
    return t;
  }
  value(k: number): string | null {
    return k === NULL_INT ? null : this.values[k]!;
  }
}
