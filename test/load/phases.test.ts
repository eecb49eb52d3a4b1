import { describe, expect, it } from 'vitest';
import { phaseOf, phaseBoundsProblem, type PhaseBounds } from '../../src/load/phases.js';

describe('phases', () => {
  it('count-based warmup and cooldown', () => {
    const plan: PhaseBounds = { warmup: { requests: 2 }, cooldown: { requests: 3 }, totalRequests: 10, durationMs: null };
    const phases = Array.from({ length: 10 }, (_, i) => phaseOf(plan, i, i * 100));
    expect(phases).toEqual(['warmup', 'warmup', 'measure', 'measure', 'measure', 'measure', 'measure', 'cooldown', 'cooldown', 'cooldown']);
  });
  it('time-based warmup and cooldown', () => {
    const plan: PhaseBounds = { warmup: { duration_ms: 1000 }, cooldown: { duration_ms: 2000 }, totalRequests: null, durationMs: 10_000 };
    expect(phaseOf(plan, 0, 999)).toBe('warmup');
    expect(phaseOf(plan, 1, 1000)).toBe('measure');
    expect(phaseOf(plan, 2, 7999)).toBe('measure');
    expect(phaseOf(plan, 3, 8000)).toBe('cooldown');
  });
  it('rejects plans that leave nothing to measure or cannot be applied', () => {
    expect(phaseBoundsProblem({ warmup: { requests: 5 }, cooldown: { requests: 5 }, totalRequests: 10, durationMs: null })).toMatch(/nothing/);
    expect(phaseBoundsProblem({ warmup: { requests: 0 }, cooldown: { duration_ms: 5000 }, totalRequests: 10, durationMs: null })).toMatch(/needs --duration/);
    expect(phaseBoundsProblem({ warmup: { duration_ms: 5000 }, cooldown: { duration_ms: 5000 }, totalRequests: null, durationMs: 10_000 })).toMatch(/nothing/);
    expect(phaseBoundsProblem({ warmup: { requests: 1 }, cooldown: { requests: 1 }, totalRequests: 10, durationMs: null })).toBeNull();
  });
});
