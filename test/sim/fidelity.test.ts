/**
 * The fidelity table of docs/simulator.md, reproduced: every published measurement in
 * fidelity/cases.ts replayed in virtual time, the median |simulated / measured − 1| per figure
 * type held to the documented figure plus a small margin, so a cost-model change cannot
 * silently make the simulator less faithful.
 */
import { describe, expect, it } from 'vitest';
import { CASES, SOURCES } from './fidelity/cases.js';
import { medianErrors, runCase, type CaseResult } from './fidelity/run-case.js';

/** docs/simulator.md §Fidelity: median absolute error per figure type with the default parameters. */
const DOCUMENTED = { ttft: 0.296, tpot: 0.039, throughput: 0.084, all: 0.097 };
const MARGIN = 0.02;

describe('fidelity against published engine measurements', () => {
  const results: CaseResult[] = CASES.flatMap((c) => runCase(c));

  it('covers the table: ≥ 12 measurements, ≥ 3 GPU types, small and large models, every figure type', () => {
    expect(results.length).toBeGreaterThanOrEqual(12);
    expect(new Set(CASES.map((c) => c.hardware)).size).toBeGreaterThanOrEqual(3);
    expect(new Set(results.map((r) => (r.figure === 'itl' ? 'tpot' : r.figure)))).toEqual(new Set(['ttft', 'tpot', 'throughput']));
    for (const c of CASES) expect(SOURCES.map((s) => s.id)).toContain(c.source);
    for (const r of results) expect(Number.isFinite(r.simulated) && r.simulated > 0).toBe(true);
  });

  it('median absolute error per figure type stays within the documented figures', () => {
    const e = medianErrors(results);
    for (const [k, v] of Object.entries(DOCUMENTED)) expect(e[k], k).toBeLessThanOrEqual(v + MARGIN);
  });
});
