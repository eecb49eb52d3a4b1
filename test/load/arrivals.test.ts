import { describe, expect, it } from 'vitest';
import { arrivalTimes, gapSampler, resolveArrivalKind } from '../../src/load/arrivals.js';

function gaps(kind: 'poisson' | 'gamma' | 'constant', rate: number, burstiness: number, n: number, seed = 1): number[] {
  const g = gapSampler({ kind, rate, burstiness, seed });
  return Array.from({ length: n }, g);
}

function meanAndCv(xs: number[]): { mean: number; cv: number } {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const variance = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length;
  return { mean, cv: Math.sqrt(variance) / mean };
}

describe('arrival schedules', () => {
  // With n = 200,000 gaps the standard error of the mean is CV/√n ≈ 0.22% of the mean;
  // tolerances of 1.5% are > 6 standard errors, so with fixed seeds these never flake.
  const N = 200_000;

  it('poisson: mean gap 1000/λ ms and coefficient of variation 1', () => {
    const { mean, cv } = meanAndCv(gaps('poisson', 20, 1, N));
    expect(mean).toBeGreaterThan(50 * 0.985);
    expect(mean).toBeLessThan(50 * 1.015);
    expect(cv).toBeGreaterThan(0.985);
    expect(cv).toBeLessThan(1.015);
  });

  it.each([0.25, 0.5, 2, 4])('gamma with burstiness %s: same mean rate, CV = 1/√k', (k) => {
    const { mean, cv } = meanAndCv(gaps('gamma', 10, k, N, 7));
    expect(mean / 100).toBeGreaterThan(0.985);
    expect(mean / 100).toBeLessThan(1.015);
    expect(cv * Math.sqrt(k)).toBeGreaterThan(0.97);
    expect(cv * Math.sqrt(k)).toBeLessThan(1.03);
  });

  it('constant: every gap exactly 1000/λ', () => {
    expect(new Set(gaps('constant', 8, 1, 100))).toEqual(new Set([125]));
  });

  it('inf sends everything at t = 0', () => {
    const it = arrivalTimes({ kind: 'poisson', rate: Infinity, burstiness: 1, seed: 0 });
    expect([it.next().value, it.next().value, it.next().value]).toEqual([0, 0, 0]);
  });

  it('the first request goes at 0, times are non-decreasing, and the seed reproduces them', () => {
    const take = (seed: number) => {
      const it = arrivalTimes({ kind: 'gamma', rate: 50, burstiness: 0.5, seed });
      return Array.from({ length: 1000 }, () => it.next().value);
    };
    const a = take(42);
    expect(a[0]).toBe(0);
    for (let i = 1; i < a.length; i++) expect(a[i]!).toBeGreaterThanOrEqual(a[i - 1]!);
    expect(take(42)).toEqual(a);
    expect(take(43)).not.toEqual(a);
    // 1000 requests at 50/s take about 20 s.
    expect(a[999]! / 1000).toBeGreaterThan(17);
    expect(a[999]! / 1000).toBeLessThan(23);
  });

  it('burstiness ≠ 1 implies gamma unless the kind is given', () => {
    expect(resolveArrivalKind(null, 1)).toBe('poisson');
    expect(resolveArrivalKind(null, 0.5)).toBe('gamma');
    expect(resolveArrivalKind('constant', 0.5)).toBe('constant');
  });
});
