/**
 * Busy polling (`--busy-poll`): keeps a thread's event loop turning instead of sleeping in
 * epoll_wait, so a streamed chunk is read, and timestamped, as soon as the kernel has it rather
 * than after the OS has woken the thread. On the 2-core VM of docs/performance.md §3 that wake-up
 * was most of the client-added TTFT error (p50 0.19 → 0.02 ms at 1,000 streams). It costs a full
 * core per thread, so it is opt-in: worth it on a client machine of its own, harmful when the
 * server shares the cores.
 *
 * A pending immediate makes libuv poll with a zero timeout. Re-arming one every turn would be
 * the simplest spin, but Node allocates ~330 bytes per immediate and a bare spin turns 1.3 M
 * times a second: 430 MB/s of garbage, a young-generation collection every few ms, each pausing
 * the thread as long as its live requests take to copy. So each turn first burns ~20 µs in a
 * loop that allocates nothing (not even a clock reading, which V8 boxes), cutting the garbage
 * about 30-fold; a chunk then waits at most that long for its read.
 *
 * The event loop utilisation of a spinning thread is meaningless (it is never idle), so the
 * turns themselves measure the real work: whatever a turn took beyond an empty turn was work.
 */
import { performance } from 'node:perf_hooks';

/** Target length of one turn's allocation-free wait. */
const BURN_MS = 0.02;
/** Between two burns, an empty turn (libuv's own phases, a zero-timeout epoll_wait) takes less. */
const EMPTY_TURN_MS = 0.02;

const cell = new Int32Array(new SharedArrayBuffer(4));

/** An atomic load per iteration: no allocation, and the optimizer may not drop it. */
function burn(iterations: number): number {
  let s = 0;
  for (let i = 0; i < iterations; i++) s += Atomics.load(cell, 0);
  return s;
}

let calibrated = 0;

/** Iterations of burn() that take about BURN_MS (measured over a few ms, once per thread). */
function burnIterations(): number {
  if (calibrated > 0) return calibrated;
  let n = 1000;
  for (;;) {
    const t = performance.now();
    burn(n);
    const ms = performance.now() - t;
    if (ms > 2 || n > 1e9) {
      calibrated = Math.max(1, Math.round((n * BURN_MS) / Math.max(ms, 1e-6)));
      return calibrated;
    }
    n *= 2;
  }
}

export class BusyPoll {
  private handle: NodeJS.Immediate | null = null;
  private startMs = 0;
  private lastMs = 0;
  private idleMs = 0;
  private iterations = 1;

  start(): this {
    if (this.handle) return this;
    this.iterations = burnIterations();
    this.startMs = this.lastMs = performance.now();
    this.idleMs = 0;
    this.handle = setImmediate(this.turn);
    return this;
  }

  private readonly turn = (): void => {
    const now = performance.now();
    const gap = now - this.lastMs;
    // since the last burn: an empty turn is all idle; a longer one was work beyond its empty part
    this.idleMs += gap < EMPTY_TURN_MS ? gap : EMPTY_TURN_MS;
    burn(this.iterations);
    this.lastMs = performance.now();
    this.idleMs += this.lastMs - now;
    this.handle = setImmediate(this.turn);
  };

  /** Stops spinning; returns the share of wall time the loop spent on work (0–1). */
  stop(): number {
    if (!this.handle) return 0;
    clearImmediate(this.handle);
    this.handle = null;
    const wall = performance.now() - this.startMs;
    return wall > 0 ? Math.min(1, Math.max(0, 1 - this.idleMs / wall)) : 0;
  }
}
