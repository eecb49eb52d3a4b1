/**
 * How often the last stretch before a send yields to I/O. The dispatch loop busy-waits its last
 * ~1.5 ms in slices of ~20 µs of a calibrated allocation-free loop, yielding (an immediate) between
 * slices; yielding on every loop turn instead made ~1,000 immediates per request. The count is a
 * wall-clock figure: the slice's length comes from a calibration measured in wall time, which a
 * preempted thread under-measures (so it yields more often), and from how soon the timer before
 * the stretch fired. So it is checked here, in the serial timing project, not in the default one.
 */
import { createHook } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../src/record/record.js';
import { runLoad, type Sender } from '../../src/runner/run-load.js';
import type { WorkItem } from '../../src/workload/types.js';
import { withNoise } from './noise-probe.js';
import { constantRateLoad } from './constant-rate-load.js';
import { observe } from './observe.js';


describe('the last stretch before a send', () => {
  it('yields to I/O in ~20 µs slices, not on every loop turn', async () => {
    const n = 100;
    const t0 = performance.now();
    const clock = () => performance.now() - t0;
    const sender: Sender = {
      prepare: (w: WorkItem) => w,
      send: (rec: RequestRecord) => {
        rec.sent_ms = clock();
        rec.end_ms = rec.first_token_ms = clock();
        rec.output_tokens = 4;
        return Promise.resolve(rec);
      },
      cancelAll: () => {},
    };
    let immediates = 0;
    const hook = createHook({ init: (_id, type) => void (type === 'Immediate' && immediates++) });
    const { value: out, noise } = await withNoise(async () => {
      hook.enable();
      try {
        return await runLoad(constantRateLoad(500, n, sender, clock));
      } finally {
        hook.disable();
      }
    });
    expect(out.records).toHaveLength(n);
    for (const r of out.records) expect(r.sent_ms).toBeGreaterThanOrEqual(r.scheduled_ms);
    // ~75 per request on an idle machine (1.5 ms / 20 µs); yielding on every turn made ~1,000.
    expect(observe('spin: immediates per request', immediates / n)).toBeLessThan(600);
    observe('spin: noise max ms', noise.max);
  });
});
