import { describe, expect, it } from 'vitest';
import type { TokenSink } from '../../src/sim/backend.js';
import { FixedBackend } from '../../src/sim/fixed-backend.js';
import { LATE_STEP_MS } from '../../src/sim/late-steps.js';
import { SimMetrics } from '../../src/sim/metrics/sim-metrics.js';
import { sleep } from './helpers.js';

class RecordingSink implements TokenSink {
  tokens: [number, number][] = [];
  flushes: number[] = []; // tokens held at each flush
  held = 0;
  done = NaN;
  onAdmit(): void {}
  onToken(k: number, atMs: number): void {
    this.tokens.push([k, atMs]);
    this.held++;
  }
  flush(): void {
    this.flushes.push(this.held);
    this.held = 0;
  }
  onDone(atMs: number): void {
    this.done = atMs;
  }
  onFail(): void {}
}

const req = (id: number, outputTokens: number) => ({ id, arrivalMs: 1000, promptTokens: 1, outputTokens, blockHashes: [] });

describe('FixedBackend', () => {
  it('stamps token k at arrival + prefill + k × perToken, whatever the timer does', async () => {
    let now = 1000;
    const b = new FixedBackend(10, 5, () => now);
    const sink = new RecordingSink();
    b.submit(req(1, 4), sink);
    now = 1012; // the timer fires "at" 1012: only token 0 (due 1010) is due
    await sleep(25);
    expect(sink.tokens).toEqual([[0, 1010]]);
    now = 2000;
    await sleep(25);
    expect(sink.tokens).toEqual([[0, 1010], [1, 1015], [2, 1020], [3, 1025]]);
    expect(sink.done).toBe(1025);
    b.close();
  });

  it('a stream that fell behind catches up with one flush (one socket write)', async () => {
    let now = 1000;
    const b = new FixedBackend(10, 5, () => now);
    const sink = new RecordingSink();
    b.submit(req(1, 100), sink);
    now = 1100; // 90 ms late: tokens due at 1010, 1015, …, 1100 → 19 tokens
    await sleep(25);
    expect(sink.tokens).toHaveLength(19);
    expect(sink.flushes).toEqual([19]);
    expect(b.lateness.maxMs).toBeCloseTo(90, 6);
    b.close();
  });

  it('stops a cancelled stream and reports the running count', async () => {
    let now = 1000;
    const b = new FixedBackend(10, 5, () => now);
    const a = new RecordingSink();
    const c = new RecordingSink();
    b.submit(req(1, 10), a);
    b.submit(req(2, 10), c);
    expect(b.stats().running).toBe(2);
    b.cancel(1);
    expect(b.stats().running).toBe(1);
    now = 5000;
    await sleep(25);
    expect(a.tokens).toHaveLength(0);
    expect(c.tokens).toHaveLength(10);
    expect(b.stats().running).toBe(0);
    b.close();
  });

  it('counts a pass over LATE_STEP_MS behind its earliest due token as a late step, warns once, and /metrics shows it', async () => {
    let now = 1000;
    const lines: string[] = [];
    const b = new FixedBackend(10, 5, () => now, (l) => lines.push(l));
    const sink = new RecordingSink();
    b.submit(req(1, 100), sink);
    now = 1010 + LATE_STEP_MS; // token 0 was due at 1010: exactly at the threshold, on time
    await sleep(25);
    expect(b.lateSteps.total).toBe(0);
    now = 1100; // the next pass starts 65 ms after its earliest due token (1035)
    await sleep(25);
    expect(b.lateSteps.total).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^infermeter sim: warning: a step ended more than 20 ms late \(65\.0 ms\): the simulator is short of CPU/);
    now = 1105; // 0 ms late: served on time
    await sleep(25);
    expect(b.lateSteps.total).toBe(1);
    const text = new SimMetrics('m').render(b.stats(), 0);
    expect(text.split('\n').filter((l) => l.startsWith('infermeter_sim_late_steps_total'))).toEqual(['infermeter_sim_late_steps_total 1.0']);
    b.close();
  });
});
