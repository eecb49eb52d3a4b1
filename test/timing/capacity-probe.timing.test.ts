/**
 * Wall time, measured: the capacity self-test (src/runner/capacity-probe.ts) stays within its
 * ~2 s budget, counts what it drove consistently (every counted request streamed its tokens), and
 * sees the client slow down when the machine is busier. Its figures vary by a factor of ~3 from
 * run to run on a loaded 2-core machine (6 runs at 8 streams × 32 tokens, load average 11.6:
 * 439–1466 req/s; wall time 1.26–1.33 s), so no test here asserts a throughput value: only
 * relations that hold under that noise.
 */
import { describe, expect, it } from 'vitest';
import { probeCapacity } from '../../src/runner/capacity-probe.js';

describe('capacity probe', () => {
  it('ends within its budget, and its token rate is its request rate times the tokens per request', async () => {
    const t0 = performance.now();
    const f = await probeCapacity({ concurrency: 8, outputTokens: 32 });
    const wall = performance.now() - t0;
    // 1.2 s of driving plus starting and stopping the source thread: measured 1.26–1.39 s. The window
    // stretches to at most 2× its 1 s while fewer requests than streams finished, so up to ~2.4 s; allowed 4 s on a busy machine.
    expect(wall).toBeLessThan(4000);
    expect(f.requests_per_s).toBeGreaterThan(0);
    expect(f.output_tokens_per_s).toBe(f.requests_per_s * 32);
    expect(f).toMatchObject({ concurrency: 8, output_tokens: 32 });
    expect(f.duration_ms).toBeGreaterThanOrEqual(1000);
    expect(f.duration_ms).toBeLessThanOrEqual(2000 + 50);
    expect(f.dispatch_lag_p99_ms).toBeGreaterThan(0);
  });

  it('a main thread kept busy half the time drives less than a free one', async () => {
    // The free run first and the busy one second, twice, so a machine-wide change in load cannot order them alone.
    const busy = () => {
      const t = setInterval(() => {
        const until = performance.now() + 5;
        while (performance.now() < until);
      }, 5);
      return () => clearInterval(t);
    };
    const ratios: number[] = [];
    for (let i = 0; i < 2; i++) {
      const free = await probeCapacity({ concurrency: 4, outputTokens: 32, durationMs: 500 });
      const stop = busy();
      const loaded = await probeCapacity({ concurrency: 4, outputTokens: 32, durationMs: 500 });
      stop();
      ratios.push(loaded.requests_per_s / free.requests_per_s);
    }
    // Half of the loop taken: about half the throughput; under ~3× noise, at least the better of two pairs is below 1.
    expect(Math.min(...ratios)).toBeLessThan(1);
  });
});
