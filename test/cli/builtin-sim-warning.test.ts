import { describe, expect, it } from 'vitest';
import { builtInServerOptions, firstWarningOnly } from '../../src/session/builtin-sim.js';
import { resolveRunSpec } from '../../src/cli/resolve-spec.js';
import { startSimServer } from '../../src/sim/index.js';
import { createWorkload } from '../../src/workload/index.js';

describe("run's built-in simulator says when it, not the model, is slow", () => {
  it('firstWarningOnly passes the first line on and drops the rest', () => {
    const lines: string[] = [];
    const warn = firstWarningOnly((l) => lines.push(l));
    warn('a');
    warn('b');
    expect(lines).toEqual(['a (said once per run)']);
  });

  it('a built-in simulator whose steps run late prints one warning line on the run log', async () => {
    const spec = resolveRunSpec({ prefillMs: '5', perTokenMs: '1' });
    const workload = await createWorkload(spec.workload, { seed: 0, endpointKind: 'completions' });
    const log: string[] = [];
    // The backend's clock stands 10 s ahead of the HTTP layer's: every pass is 10 s late, with
    // no load on the machine.
    const server = await startSimServer({ ...builtInServerOptions(spec, workload, (l) => log.push(l)), backendClock: () => performance.now() + 10_000 });
    try {
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${server.url}/v1/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: spec.sim.model, prompt: 'hello there', max_tokens: 4, stream: true, ignore_eos: true }),
        });
        expect(res.status).toBe(200);
        await res.text();
      }
      expect(server.stats().lateSteps).toBeGreaterThanOrEqual(2);
      expect(log).toHaveLength(1);
      expect(log[0]).toMatch(/^infermeter sim: warning: a step ended more than 20 ms late .*short of CPU.*\(said once per run\)$/);
    } finally {
      await server.close();
    }
  });
});
