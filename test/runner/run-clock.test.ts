import { describe, expect, it } from 'vitest';
import { createRunClock, hrtimeNowNs } from '../../src/runner/run-clock.js';

const sinceNs = (originNs: string): number => Number(process.hrtime.bigint() - BigInt(originNs)) / 1e6;

describe('run clock', () => {
  it('reads milliseconds since the origin on the process monotonic clock: each reading lies between hrtime read before and after it', () => {
    const originNs = hrtimeNowNs();
    const clock = createRunClock(originNs);
    for (let i = 0; i < 20; i++) {
      const before = sinceNs(originNs);
      const c = clock();
      const after = sinceNs(originNs);
      // 1 ms: the same clock and unit, whatever the machine's load (the offset's precision, about a
      // microsecond, is measured in test/timing/)
      expect(c).toBeGreaterThanOrEqual(before - 1);
      expect(c).toBeLessThanOrEqual(after + 1);
    }
  });

  it('puts an origin taken earlier in the past', () => {
    const originNs = (process.hrtime.bigint() - 5_000_000_000n).toString();
    const before = sinceNs(originNs);
    const c = createRunClock(originNs)();
    const after = sinceNs(originNs);
    expect(c).toBeGreaterThanOrEqual(before - 1);
    expect(c).toBeLessThanOrEqual(after + 1);
    expect(c).toBeGreaterThanOrEqual(5000);
  });
});
