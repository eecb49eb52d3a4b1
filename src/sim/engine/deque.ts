/** Growable ring-buffer deque: O(1) push/pop at both ends (the FCFS waiting queue). */
export class Deque<T> {
  private buf: (T | undefined)[] = new Array<T | undefined>(16);
  private head = 0;
  private n = 0;

  get length(): number {
    return this.n;
  }

  peekFront(): T | undefined {
    return this.n === 0 ? undefined : this.buf[this.head];
  }

  pushBack(x: T): void {
    if (this.n === this.buf.length) this.grow();
    this.buf[(this.head + this.n) % this.buf.length] = x;
    this.n++;
  }

  pushFront(x: T): void {
    if (this.n === this.buf.length) this.grow();
    this.head = (this.head - 1 + this.buf.length) % this.buf.length;
    this.buf[this.head] = x;
    this.n++;
  }

  popFront(): T | undefined {
    if (this.n === 0) return undefined;
    const x = this.buf[this.head];
    this.buf[this.head] = undefined;
    this.head = (this.head + 1) % this.buf.length;
    this.n--;
    return x;
  }

  private grow(): void {
    const old = this.buf;
    const next = new Array<T | undefined>(old.length * 2);
    for (let i = 0; i < this.n; i++) next[i] = old[(this.head + i) % old.length];
    this.buf = next;
    this.head = 0;
  }
}
