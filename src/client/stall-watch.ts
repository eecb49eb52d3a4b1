/**
 * Stall detection (--stall-timeout): a response that has begun but sends no byte for
 * `stallMs` is ended. One timer per client sweeps the requests in flight, so the read path
 * costs nothing: each request only exposes the time of its last byte, which it keeps anyway.
 * A stall is noticed between stallMs and stallMs + one sweep period late (the period is
 * stallMs / 4, between 20 ms and 1 s).
 */
export class StallWatch<T> {
  private timer: NodeJS.Timeout | null = null;
  private readonly periodMs: number;

  constructor(
    readonly stallMs: number,
    private readonly clock: () => number,
    private readonly inflight: ReadonlySet<T>,
    private readonly lastByteMs: (item: T) => number | null,
    private readonly onStall: (item: T) => void,
  ) {
    this.periodMs = Math.min(1000, Math.max(20, stallMs / 4));
  }

  /** A request was added: make sure the sweep runs (it stops by itself when none is left). */
  watch(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => this.sweep(), this.periodMs);
    this.timer.unref(); // never what keeps the process alive
  }

  /** Ends every request silent for stallMs or longer; exposed for tests in event order. */
  sweep(): void {
    if (this.inflight.size === 0) {
      this.stop();
      return;
    }
    const now = this.clock();
    for (const item of [...this.inflight]) {
      const last = this.lastByteMs(item);
      if (last !== null && now - last >= this.stallMs) this.onStall(item);
    }
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }
}
