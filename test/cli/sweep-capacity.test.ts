/**
 * A sweep's capacity check (session/sweep.ts, capacity-gate.ts): once before anything is sent,
 * on its most demanding stage, with the run's wording and --no-capacity-check. The self-test's
 * figures are given (the measurement is wall-clock: test/timing/).
 */
import { describe, expect, it } from 'vitest';
import { resolveRunSpec } from '../../src/cli/resolve-spec.js';
import { UserError } from '../../src/errors/user-error.js';
import { fixedProbe } from '../helpers/capacity-probe.js';
import { sweepSession } from '../../src/session/sweep.js';
import { parseRateList } from '../../src/sweep/stages.js';

// One thread: 400 req/s of the probe's shape saturated → 200 req/s accurately.
const probe = fixedProbe();

async function sweep(rates: string, flags: Record<string, unknown> = {}) {
  const spec = resolveRunSpec({ randomInputLen: 16, randomOutputLen: 32, numPrompts: 20, save: false, metrics: false, ...flags });
  const lines: string[] = [];
  const out = await sweepSession(spec, { mode: 'list', loads: parseRateList(rates) }, { driver: 'http', capacity: { probe, env: {}, cores: 4 } }, { log: (l) => lines.push(l) });
  return { out, lines, spec };
}

describe('the capacity check of a sweep', () => {
  it('refuses, before anything is sent, a sweep whose top finite stage is beyond this machine (the run\'s wording)', async () => {
    // 3 threads × 200 = 600 req/s accurately; the 2000 req/s stage needs 10 threads: 4 machines of 3. Port 9: nothing is ever sent.
    const run = sweep('5,2000,inf', { baseUrl: 'http://127.0.0.1:9' });
    await expect(run).rejects.toThrow(UserError);
    await expect(run).rejects.toThrow(/^capacity check: the plan needs 2000 req\/s, and all 3 workers of this machine can drive ~600: run it with --distributed on 4 worker machines like this one \(or --allow-invalid to run anyway, --no-capacity-check to skip the check\)$/);
    // Skipped with --no-capacity-check: the sweep goes on to the target (which is not there).
    await expect(sweep('5,2000,inf', { baseUrl: 'http://127.0.0.1:9', capacityCheck: false })).rejects.not.toThrow(/capacity check/);
  });

  it('chooses the workers its top stage needs for every stage, and records the check in sweep.json', async () => {
    // The built-in simulator over HTTP: 500 req/s needs ⌈500 / 200⌉ = 3 threads.
    const { out, lines, spec } = await sweep('5,500');
    expect(lines).toContain("capacity check: the sweep's most demanding stage, 500 req/s");
    expect(lines.some((l) => /^this machine can drive ~600 req\/s .* with 3 workers; the plan needs 500 req\/s .*, 3 workers$/.test(l))).toBe(true);
    expect(spec.load.workers).toBe(3);
    expect(out.started).toBe(true);
    const r = out.started ? out.result : null;
    expect(r!.capacity_check).toMatchObject({ workers_needed: 3, workers: 3, fits: true, action: '--workers 3 chosen' });
  });
});
