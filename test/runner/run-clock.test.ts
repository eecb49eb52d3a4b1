import { describe, expect, it } from 'vitest';
import { createRunClock, hrtimeNowNs } from '../../src/runner/run-clock.js';

describe('run clock', () => {
  it('reads milliseconds since the origin on the process monotonic clock, to within microseconds', () => {
    const originNs = hrtimeNowNs();
    const clock = createRunClock(originNs);
    // compare against hrtime read right after; the smallest of a few differences is the offset error
    let best = Infinity;
    for (let i = 0; i < 20; i++) {
      const c = clock();
      const h = Number(process.hrtime.bigint() - BigInt(originNs)) / 1e6;
      best = Math.min(best, Math.abs(h - c));
    }
    expect(best).toBeLessThan(0.02);
  });

  it('puts an origin taken earlier in the past', () => {
    const originNs = (process.hrtime.bigint() - 5_000_000_000n).toString();
    expect(createRunClock(originNs)()).toBeGreaterThanOrEqual(5000);
    expect(createRunClock(originNs)()).toBeLessThan(6000);
  });
});
