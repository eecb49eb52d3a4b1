/**
 * --search confirms its answer (run-sweep.ts): the bracketing's answer is run again as a stage of
 * its own, and a failed confirmation steps down to the next lower passing probe, at most
 * MAX_CONFIRMATIONS runs. The stages here are a hand-made service: its SLOs hold up to `probeCap`
 * when a stage runs as a probe and only up to `confirmCap` when run again — a server whose cache
 * served the probes.
 */
import { describe, expect, it } from 'vitest';
import type { ObjectiveResult } from '../../src/metrics/index.js';
import { MAX_CONFIRMATIONS, runStages, type RunStage } from '../../src/sweep/run-sweep.js';
import { loadValue } from '../../src/sweep/stages.js';
import type { StageResult } from '../../src/sweep/sweep-result.js';

function service(probeCap: number, confirmCap: number): { run: RunStage; roles: string[] } {
  const roles: string[] = [];
  const run: RunStage = async (load, role, index) => {
    roles.push(`${role}@${loadValue(load)}`);
    const cap = role === 'confirm' ? confirmCap : probeCap;
    const pass = loadValue(load) <= cap;
    const slo = { slo: 'p95(ttft) < 2s', value: pass ? 1500 : 4000, pass } as unknown as ObjectiveResult;
    return { index, role, load, metrics: {} as StageResult['metrics'], validity: null, slos: [slo], slos_pass: pass, stopped_early: null, records: 0, wall_s: 0 };
  };
  return { run, roles };
}

const PLAN = { mode: 'search' as const, kind: 'rate' as const, options: { start: 1, precision: 0.05, min: 1 / 64, max: 1024, integer: false } };

describe('--search confirmation', () => {
  it('a confirmed answer: one re-run at the found load, with its own stage', async () => {
    const { run, roles } = service(10, 10);
    const r = await runStages(PLAN, run);
    // Bracketing as in search.test.ts: 1, 2, 4, 8, 16, 12, 10, 11, 10.5 → 10; then one confirmation at 10.
    expect(roles.slice(-2)).toEqual(['search@10.5', 'confirm@10']);
    expect(r.search!.bracketed).toBe(10);
    expect(r.search!.found).toBe(10);
    expect(r.search!.confirmations).toEqual([{ load: 10, stage: 9, pass: true, why: 'held: p95(ttft) < 2s: 1500' }]);
    expect(r.search!.reason).toMatch(/; confirmed by a re-run with fresh prompts \(stage 10\)$/);
  });

  it('a failed confirmation steps down to the next lower passing probe and confirms that', async () => {
    // The probes pass up to 10; run again, only loads ≤ 8 hold.
    const { run, roles } = service(10, 8);
    const r = await runStages(PLAN, run);
    expect(roles.slice(-2)).toEqual(['confirm@10', 'confirm@8']);
    expect(r.search!.bracketed).toBe(10);
    expect(r.search!.found).toBe(8);
    expect(r.search!.confirmations!.map((c) => [c.load, c.pass])).toEqual([[10, false], [8, true]]);
    expect(r.search!.reason).toContain('10 failed its confirmation run (stage 10, failed: p95(ttft) < 2s: 4000); stepped down to 8; 8 confirmed by a re-run with fresh prompts (stage 11)');
  });

  it(`gives up after ${MAX_CONFIRMATIONS} confirmation runs: no load is confirmed`, async () => {
    // Passing probes: 1, 2, 4, 8, 10; confirmations at 10, 8, 4 all fail (only ≤ 2 would hold).
    const { run, roles } = service(10, 2);
    const r = await runStages(PLAN, run);
    expect(roles.filter((x) => x.startsWith('confirm'))).toEqual(['confirm@10', 'confirm@8', 'confirm@4']);
    expect(r.search!.found).toBeNull();
    expect(r.search!.bracketed).toBe(10);
    expect(r.search!.reason).toMatch(/stopped after 3 confirmation runs without one holding \(the next lower passing probe was 2\): no load is confirmed$/);
  });

  it('no lower passing probe to step down to: no load is confirmed', async () => {
    // Only the start, 1, passes as a probe (2, 1.5, 1.25, … 1.03125 fail); run again, it fails too.
    const { run } = service(1, 0);
    const r = await runStages(PLAN, run);
    expect(r.search!.bracketed).toBe(1);
    expect(r.search!.confirmations!.map((c) => c.load)).toEqual([1]);
    expect(r.search!.found).toBeNull();
    expect(r.search!.reason).toMatch(/1 failed its confirmation run .*and no lower load passed as a probe: no load is confirmed$/);
  });

  it('a search that found nothing runs no confirmation', async () => {
    const { run, roles } = service(0, 0);
    const r = await runStages(PLAN, run);
    expect(roles.some((x) => x.startsWith('confirm'))).toBe(false);
    expect(r.search!.found).toBeNull();
    expect(r.search!.confirmations).toEqual([]);
  });
});
