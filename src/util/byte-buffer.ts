/**
 * Growable byte and float buffers for the SSE hot path: amortized O(1) append, no per-chunk
 * allocation once warm. A ByteBuffer may start empty (capacity 0) and allocate on first use. `length` is the used part; the backing array may be replaced on growth,
 * so never keep a view across appends.
 */

export class ByteBuffer {
  bytes: Uint8Array;
  /** A DataView of `bytes`, replaced with it. */
  view: DataView;
  length = 0;

  constructor(capacity = 256) {
    this.bytes = new Uint8Array(capacity);
    this.view = new DataView(this.bytes.buffer);
  }

  append(src: Uint8Array, start: number, stop: number): void {
    const n = stop - start;
    this.reserve(this.length + n);
    if (n > 64) this.bytes.set(src.subarray(start, stop), this.length);
    else {
      // short copies: a loop beats allocating the subarray view that set() needs
      const dst = this.bytes;
      for (let i = 0, o = this.length; i < n; i++) dst[o + i] = src[start + i]!;
    }
    this.length += n;
  }

  appendByte(c: number): void {
    this.reserve(this.length + 1);
    this.bytes[this.length++] = c;
  }

  private reserve(need: number): void {
    if (need <= this.bytes.length) return;
    let cap = Math.max(256, this.bytes.length * 2);
    while (cap < need) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
    this.view = new DataView(next.buffer);
  }
}

export class FloatBuffer {
  values: Float64Array;
  length = 0;

  constructor(capacity = 64) {
    this.values = new Float64Array(capacity);
  }

  push(v: number): void {
    if (this.length === this.values.length) {
      const next = new Float64Array(Math.max(64, this.values.length * 2));
      next.set(this.values);
      this.values = next;
    }
    this.values[this.length++] = v;
  }

  /**
   * The used part. Records keep this array for the whole run, so it carries no more than 1/8
   * slack: with more, the buffer is first shrunk to fit (one copy; later pushes grow it again).
   * Otherwise a view sharing memory with the buffer until its next growth.
   */
  view(): Float64Array {
    if (this.values.length - this.length > this.length >> 3) this.values = this.values.slice(0, this.length);
    return this.values.subarray(0, this.length);
  }
}
