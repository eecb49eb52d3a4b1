import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LoadSearch, type SearchOptions } from '../../src/sweep/search.js';

/** Runs a search against a service that meets its SLOs at any load ≤ capacity. */
function search(capacity: number, opts: Partial<SearchOptions> = {}) {
  const s = new LoadSearch({ start: 1, precision: 0.05, min: 1 / 64, max: 1024, integer: false, ...opts });
  const probes: number[] = [];
  for (let load = s.next(); load !== null; load = s.next()) {
    probes.push(load);
    s.record(load, load <= capacity);
  }
  return { ...s.outcome, probes };
}

describe('LoadSearch', () => {
  it('brackets by doubling, then bisects to the precision', () => {
    const r = search(10);
    // 1, 2, 4, 8 pass; 16 fails → bisect [8, 16]: 12 F, 10 P, 11 F, 10.5 F → (10.5 − 10)/10 = 5%.
    expect(r.probes).toEqual([1, 2, 4, 8, 16, 12, 10, 11, 10.5]);
    expect(r.found).toBe(10);
    expect(r.bracket).toEqual([10, 10.5]);
  });

  it('halves when the start already fails', () => {
    const r = search(0.3, { start: 4 });
    expect(r.probes.slice(0, 5)).toEqual([4, 2, 1, 0.5, 0.25]);
    expect(r.found).toBeLessThanOrEqual(0.3);
  });

  it('converges to within its precision for any capacity, never probing a load twice (property)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.05, max: 900, noNaN: true }), fc.constantFrom(0.01, 0.05, 0.1), (cap, precision) => {
        const r = search(cap, { precision });
        expect(new Set(r.probes).size).toBe(r.probes.length);
        const [lo, hi] = r.bracket;
        expect(lo).not.toBeNull();
        expect(lo!).toBeLessThanOrEqual(cap);
        expect(hi!).toBeGreaterThan(cap);
        expect((hi! - lo!) / lo!).toBeLessThanOrEqual(precision + 1e-9);
      }),
    );
  });

  it('integer loads (concurrency) end with a bracket of width 1', () => {
    const r = search(37, { integer: true, min: 1 });
    expect(r.bracket).toEqual([37, 38]);
    expect(r.probes).toEqual([1, 2, 4, 8, 16, 32, 64, 48, 40, 36, 38, 37]);
  });

  it('reports when the limits are reached', () => {
    expect(search(5000).reason).toMatch(/hold at the search limit 1024/);
    const none = search(0.001);
    expect(none.found).toBeNull();
    expect(none.reason).toMatch(/fail even at the lowest load/);
  });

  it('answers a load it already probed from the first run', () => {
    const s = new LoadSearch({ start: 4, precision: 0.05, min: 1, max: 8, integer: true });
    s.record(4, true);
    s.record(8, false);
    expect(s.next()).toBe(6); // 4 and 8 were not asked again
  });
});

describe('LoadSearch guard', () => {
  it('fails fast, naming the bracket, when a candidate lands on a probed load without moving the bracket', () => {
    // Integer loads with min 0.5: 1 fails → hi = 1; the next candidate round(max(1/2, 0.5)) = 1
    // is the failed load again, which leaves hi at 1 — before the guard this looped for ever.
    const s = new LoadSearch({ start: 1, precision: 0.05, min: 0.5, max: 8, integer: true });
    expect(s.next()).toBe(1);
    s.record(1, false);
    expect(() => s.next()).toThrow(/LoadSearch\.next\(\): the bracket \[null, 1\] stopped moving after 2 steps .*next candidate 1/);
  });
});
