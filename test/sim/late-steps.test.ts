import { describe, expect, it } from 'vitest';
import { EngineBackend } from '../../src/sim/engine-backend.js';
import { LATE_STEP_MS, LateSteps } from '../../src/sim/late-steps.js';
import { SimMetrics } from '../../src/sim/metrics/sim-metrics.js';
import type { TokenSink } from '../../src/sim/backend.js';

describe('late steps: the real-time server says when it, not the model, is slow', () => {
  it('counts steps over the threshold, warns once, then at most once a minute with the count since', () => {
    const lines: string[] = [];
    const late = new LateSteps((l) => lines.push(l));
    late.observe(LATE_STEP_MS, 0); // at the threshold: on time
    late.observe(3, 1);
    expect(late.total).toBe(0);
    late.observe(LATE_STEP_MS + 0.1, 10);
    late.observe(500, 20);
    late.observe(45, 59_000);
    expect(late.total).toBe(3);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^infermeter sim: warning: a step ended more than 20 ms late \(20\.1 ms\): the simulator is short of CPU/);
    late.observe(30, 60_010);
    expect(late.total).toBe(4);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/warning: 3 steps ended more than 20 ms late \(30\.0 ms\)/);
  });

  it('the engine backend on a clock running ahead counts every step late, and /metrics shows the count', async () => {
    // The injected clock stands 1 s past the simulated start: every step of a 10-token request
    // (about 7.5 ms each) ends far behind it, without any wall-clock wait in the test.
    let clock = 1000;
    const lines: string[] = [];
    const backend = new EngineBackend({ kind: 'engine', hardware: 'h100', model: 'llama-3.1-8b' }, () => clock, (l) => lines.push(l));
    const done = (id: number, arrivalMs: number): Promise<number> =>
      new Promise((resolve, reject) => {
        let tokens = 0;
        const sink: TokenSink = { onAdmit: () => {}, onToken: () => void tokens++, flush: () => {}, onDone: () => resolve(tokens), onFail: (why) => reject(new Error(why)) };
        backend.submit({ id, promptTokens: 16, outputTokens: 10, blockHashes: [], arrivalMs }, sink);
      });
    expect(await done(1, 0)).toBe(10);
    expect(backend.lateSteps.total).toBe(10); // one prefill step + 9 decode steps, all late
    expect(lines).toHaveLength(1);
    const text = new SimMetrics('m').render(backend.stats(), 0);
    expect(text).toContain('# TYPE infermeter_sim_late_steps_total counter');
    expect(text.split('\n').filter((l) => l.startsWith('infermeter_sim_late_steps_total'))).toEqual(['infermeter_sim_late_steps_total 10.0']);
    // A minute later on the same clock, a second request: 10 more late steps, one more line.
    clock = 62_000;
    expect(await done(2, 61_500)).toBe(10);
    expect(backend.lateSteps.total).toBe(20);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/warning: 10 steps ended more than 20 ms late/);
    backend.close();
  });
});
