/**
 * Busy polling (`--busy-poll`): keeps a thread's event loop turning instead of sleeping in
 * epoll_wait, so a streamed chunk is read, and timestamped, as soon as the kernel has it rather
 * than after the OS has woken the thread. On the 2-core VM of docs/performance.md §3 that wake-up
 * was most of the client-added TTFT error (the figures are there). It costs a full core per
 * thread, so it is opt-in: worth it on a client machine of its own, harmful when the server
 * shares the cores.
 *
 * A pending immediate makes libuv poll with a zero timeout. Re-arming one every turn would be
 * the simplest spin, but Node allocates an object per immediate and a bare spin turns over a
 * million times a second: hundreds of MB/s of garbage and frequent young-generation collections,
 * each pausing the thread as long as its live requests take to copy (docs/performance.md §3).
 * So each turn first burns BURN_MS without allocating (util/spin.ts); a chunk then waits at most
 * that long for its read.
 *
 * The event loop utilisation of a spinning thread is meaningless (it is never idle), so the
 * turns themselves measure the real work: whatever a turn took beyond an empty turn was work.
 */
import { performance } from 'node:perf_hooks';
import { calibrateSpin, spinFor } from '../util/spin.js';

/** Length of one turn's allocation-free wait (see util/spin.ts). */
const BURN_MS = 0.02;
/** Between two burns, an empty turn (libuv's own phases, a zero-timeout epoll_wait) takes less. */
const EMPTY_TURN_MS = 0.02;

/** BusyPolls running in this thread. */
let active = 0;

/** Whether this thread's loop is busy-polled: each of its turns then spends ~20 µs spinning. */
export function busyPolling(): boolean {
  return active > 0;
}

export class BusyPoll {
  private handle: NodeJS.Immediate | null = null;
  private startMs = 0;
  private lastMs = 0;
  private idleMs = 0;

  start(): this {
    if (this.handle) return this;
    calibrateSpin();
    this.startMs = this.lastMs = performance.now();
    this.idleMs = 0;
    this.handle = setImmediate(this.turn);
    active++;
    return this;
  }

  private readonly turn = (): void => {
    const now = performance.now();
    const gap = now - this.lastMs;
    // since the last burn: an empty turn is all idle; a longer one was work beyond its empty part
    this.idleMs += gap < EMPTY_TURN_MS ? gap : EMPTY_TURN_MS;
    spinFor(BURN_MS);
    this.lastMs = performance.now();
    this.idleMs += this.lastMs - now;
    this.handle = setImmediate(this.turn);
  };

  /** Stops spinning; returns the share of wall time the loop spent on work (0–1). */
  stop(): number {
    if (!this.handle) return 0;
    clearImmediate(this.handle);
    this.handle = null;
    active--;
    const wall = performance.now() - this.startMs;
    return wall > 0 ? Math.min(1, Math.max(0, 1 - this.idleMs / wall)) : 0;
  }
}
