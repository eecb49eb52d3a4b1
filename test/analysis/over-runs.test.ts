import { describe, expect, it } from 'vitest';
import { incompleteBeta, logGamma, tCdf, tQuantile } from '../../src/analysis/student-t.js';
import { judgeAgainstBand, MIN_BAND_RUNS, noiseBand, spreadOverRuns } from '../../src/analysis/over-runs.js';

describe("Student's t", () => {
  it('quantiles equal the printed tables (two-sided 95%, 99%, 99.8%)', () => {
    expect(tQuantile(0.975, 1)).toBeCloseTo(12.7062, 4);
    expect(tQuantile(0.975, 2)).toBeCloseTo(4.3027, 4);
    expect(tQuantile(0.975, 4)).toBeCloseTo(2.7764, 4);
    expect(tQuantile(0.995, 10)).toBeCloseTo(3.1693, 4);
    expect(tQuantile(0.999, 4)).toBeCloseTo(7.1732, 4);
    expect(tQuantile(0.975, 30)).toBeCloseTo(2.0423, 4);
    // symmetric, and the normal's in the limit
    expect(tQuantile(0.025, 4)).toBeCloseTo(-2.7764, 4);
    expect(tQuantile(0.5, 3)).toBeCloseTo(0, 9);
    expect(tQuantile(0.975, Infinity)).toBeCloseTo(1.959964, 5);
  });

  it('the CDF by hand: ν = 1 is Cauchy (P(T ≤ −1) = ¼), ν = 2 has P(T ≤ t) = ½ + t / (2√(2 + t²))', () => {
    expect(tCdf(-1, 1)).toBeCloseTo(0.25, 12);
    expect(tCdf(1, 2)).toBeCloseTo(0.5 + 1 / (2 * Math.sqrt(3)), 12);
    expect(tCdf(0, 7)).toBeCloseTo(0.5, 12);
    // I_x(1, 1) = x; I_x(2, 1) = x²; ln Γ(5) = ln 24
    expect(incompleteBeta(0.3, 1, 1)).toBeCloseTo(0.3, 12);
    expect(incompleteBeta(0.3, 2, 1)).toBeCloseTo(0.09, 12);
    expect(logGamma(5)).toBeCloseTo(Math.log(24), 12);
  });

  it('refuses p outside (0, 1) and a non-positive ν', () => {
    expect(() => tQuantile(1, 3)).toThrow(RangeError);
    expect(() => tQuantile(0.9, 0)).toThrow(RangeError);
  });
});

describe('a figure over runs', () => {
  it('mean, between-run sd and the t-interval of the mean by hand', () => {
    // [1, 2, 3]: mean 2, s = 1, half-width t(0.975, 2)·1/√3 = 4.302653/1.732051 = 2.484138
    const s = spreadOverRuns([1, 2, 3], 0.95)!;
    expect(s).toMatchObject({ n: 3, mean: 2, sd: 1 });
    expect(s.ci![0]).toBeCloseTo(2 - 2.484138, 5);
    expect(s.ci![1]).toBeCloseTo(2 + 2.484138, 5);
    expect(spreadOverRuns([5], 0.95)).toMatchObject({ n: 1, mean: 5, sd: null, ci: null });
    expect(spreadOverRuns([], 0.95)).toBeNull();
  });

  it('the noise band is the prediction interval of one more run: mean ± t·s·√(1 + 1/n)', () => {
    // [1, 2, 3]: 2 ± 4.302653·1·√(4/3) = 2 ± 4.968275
    const b = noiseBand([1, 2, 3], 0.95);
    expect(b.runs).toBe(3);
    expect(b.band[0]).toBeCloseTo(2 - 4.968275, 5);
    expect(b.band[1]).toBeCloseTo(2 + 4.968275, 5);
    expect(judgeAgainstBand(7.5, b, 'lower')).toBe('worse');
    expect(judgeAgainstBand(7.5, b, 'higher')).toBe('better');
    expect(judgeAgainstBand(-3.5, b, 'lower')).toBe('better');
    expect(judgeAgainstBand(6.9, b, 'lower')).toBe('within');
    expect(() => noiseBand([1, 2], 0.95)).toThrow(`at least ${MIN_BAND_RUNS}`);
  });
});
