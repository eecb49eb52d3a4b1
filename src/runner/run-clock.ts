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
  const hrNs = process.hrtime.bigint();
  const perfNow = performance.now();
  const offset = Number(hrNs - BigInt(originNs)) / 1e6 - perfNow;
  return () => performance.now() + offset;
}
