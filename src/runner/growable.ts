/** An append-only Float64 buffer that doubles when full: no per-push allocation. */
export class GrowableF64 {
  private buf: Float64Array;
  length = 0;

  constructor(initialCapacity = 1024) {
    this.buf = new Float64Array(initialCapacity);
  }

  push(v: number): void {
    if (this.length === this.buf.length) {
      const next = new Float64Array(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[this.length++] = v;
  }

  /** A copy trimmed to length. */
  toArray(): Float64Array {
    return this.buf.slice(0, this.length);
  }
}
