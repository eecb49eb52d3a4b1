/**
 * Busy-waiting without garbage. Waiting loops that must not sleep (the last stretch before a
 * request's due time, `--busy-poll`) yield to I/O through setImmediate, and every yield costs an
 * immediate and often a promise, a few hundred bytes that die at once. Yielding on every loop
 * turn made hundreds of MB/s of such garbage at a high request rate (docs/performance.md, §How
 * the hot path works); the young-generation collections it triggered paused the very thread
 * that timestamps chunks. So waits burn a
 * calibrated number of iterations of an allocation-free loop between yields (reading the clock
 * would allocate too: V8 boxes the double it returns).
 */
import { performance } from 'node:perf_hooks';

const cell = new Int32Array(new SharedArrayBuffer(4));

/** An atomic load per iteration: no allocation, and the optimizer may not drop it. */
function burn(iterations: number): number {
  let s = 0;
  for (let i = 0; i < iterations; i++) s += Atomics.load(cell, 0);
  return s;
}

let perMs = 0;

/** Iterations of burn() per millisecond, measured once per thread over a few ms. */
function iterationsPerMs(): number {
  if (perMs > 0) return perMs;
  let n = 1000;
  for (;;) {
    const t = performance.now();
    burn(n);
    const ms = performance.now() - t;
    if (ms > 2 || n > 1e9) {
      perMs = Math.max(1, n / Math.max(ms, 1e-6));
      return perMs;
    }
    n *= 2;
  }
}

/** Busy-waits about `ms` (to within the calibration's accuracy, a few percent), allocating nothing. */
export function spinFor(ms: number): void {
  if (ms > 0) burn(Math.round(ms * iterationsPerMs()));
}

/** Measures the spin rate now (a few ms), so the first wait does not pay for it. */
export function calibrateSpin(): void {
  iterationsPerMs();
}
