/**
 * The run's clock: milliseconds since the run's t = 0, shared by every thread.
 *
 * performance.now() is the cheapest high-resolution clock but each thread has its own
 * origin; process.hrtime is one monotonic clock for the whole process. A thread reads both
 * once to learn its offset, then pays only performance.now() per timestamp.
 */
import type { Clock } from '../record/record.js';

/** Now on the process-wide monotonic clock, as a string (bigints do not cross postMessage in every runtime). */
export function hrtimeNowNs(): string {
  return process.hrtime.bigint().toString();
}

export function createRunClock(originNs: string): Clock {
  const origin = BigInt(originNs);
  // The two clocks are read one after the other, and a read can be delayed (first-call
  // compilation, an interrupt); of a few tries, the hrtime reading most tightly bracketed by two
  // performance.now() readings gives the offset, to about a microsecond.
  let bracket = Infinity;
  let offset = 0;
  for (let i = 0; i < 8; i++) {
    const before = performance.now();
    const hrNs = process.hrtime.bigint();
    const after = performance.now();
    if (after - before < bracket) {
      bracket = after - before;
      offset = Number(hrNs - origin) / 1e6 - (before + after) / 2;
    }
  }
  return () => performance.now() + offset;
}
