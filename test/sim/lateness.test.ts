import { describe, expect, it } from 'vitest';
import { LatenessStats } from '../../src/sim/lateness.js';

describe('LatenessStats', () => {
  it('gives bucket-accurate percentiles below and above 50 ms', () => {
    const l = new LatenessStats();
    for (let i = 0; i < 97; i++) l.record(0.32); // fine bucket [0.30, 0.35)
    l.record(120.4); // coarse bucket [120, 121)
    l.record(120.2);
    l.record(-2); // early counts as 0
    expect(l.count).toBe(100);
    expect(l.percentile(50)).toBeCloseTo(0.35, 9);
    expect(l.percentile(99)).toBeCloseTo(120.4, 9); // bucket edge 121, capped at the max
    expect(l.percentile(100)).toBeCloseTo(120.4, 9);
    l.record(20_000); // overflow
    expect(l.percentile(100)).toBe(20_000);
    l.reset();
    expect(l.percentile(99)).toBe(0);
  });
});
