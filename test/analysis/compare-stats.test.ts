import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { weightedPercentiles } from '../../src/analysis/compare/bootstrap.js';
import { kolmogorovQ, ksTwoSample } from '../../src/analysis/compare/ks-test.js';
import { percentile } from '../../src/metrics/stats.js';

describe('two-sample Kolmogorov–Smirnov test', () => {
  it('D by hand; identical samples give D = 0, p = 1', () => {
    // a = {1,2,3,4}, b = {3,4,5,6}: after 2, F_a = 0.5, F_b = 0 → D = 0.5
    expect(ksTwoSample([1, 2, 3, 4], [3, 4, 5, 6])!.d).toBe(0.5);
    expect(ksTwoSample([5, 5, 5], [5, 5])).toMatchObject({ d: 0, p_value: 1 });
    expect(ksTwoSample([], [1])).toBeNull();
  });

  it('Q_KS matches tabulated values of the Kolmogorov distribution', () => {
    // 1 − K(λ): K(1.36) ≈ 0.95, K(1.63) ≈ 0.99 (the classic critical values)
    expect(kolmogorovQ(1.358)).toBeCloseTo(0.05, 3);
    expect(kolmogorovQ(1.628)).toBeCloseTo(0.01, 3);
  });

  it('the p-value equals an independent computation (scipy 1.17: ks_2samp statistic, special.kolmogorov)', () => {
    // n = 10, m = 12, D = 7/12; λ = (√n_e + 0.12 + 0.11/√n_e)·D with n_e = 120/22. Reference:
    //   D = stats.ks_2samp(a, b).statistic; special.kolmogorov(λ) → 0.028179342648742868
    const a = Array.from({ length: 10 }, (_, i) => i + 1);
    const b = Array.from({ length: 12 }, (_, i) => i + 5.5);
    const r = ksTwoSample(a, b)!;
    expect(r.d).toBeCloseTo(7 / 12, 14);
    expect(r.p_value).toBeCloseTo(0.028179342648742868, 10);
    // ties inside and across samples: D = 0.5, p = special.kolmogorov(λ) → 0.25372981707165265
    const t = ksTwoSample([3, 3, 3, 5, 5, 8], [3, 5, 5, 5, 9, 9, 9, 9])!;
    expect(t.d).toBeCloseTo(0.5, 14);
    expect(t.p_value).toBeCloseTo(0.25372981707165265, 10);
  });

  it('disjoint samples of 100 each: D = 1, p tiny', () => {
    const a = Array.from({ length: 100 }, (_, i) => i);
    const b = a.map((x) => x + 1000);
    const r = ksTwoSample(a, b)!;
    expect(r.d).toBe(1);
    expect(r.p_value).toBeLessThan(1e-10);
  });
});

describe('weighted percentiles (the bootstrap resample without re-sorting)', () => {
  it('equal the numpy percentile of the expanded multiset (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.double({ min: 0, max: 1000, noNaN: true }), fc.integer({ min: 0, max: 4 })), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 0, max: 4 }),
        (pairs, extra) => {
          // values owned by requests 0..k; weights per request
          const owners = pairs.map(([, o]) => o);
          const values = pairs.map(([v]) => v);
          const idx = values.map((_, i) => i).sort((x, y) => values[x]! - values[y]!);
          const sorted = { values: Float64Array.from(idx, (i) => values[i]!), owner: Int32Array.from(idx, (i) => owners[i]!) };
          const weight = Int32Array.from({ length: 5 }, (_, i) => (i + extra) % 3);
          const expanded: number[] = [];
          for (let j = 0; j < sorted.values.length; j++) for (let w = 0; w < weight[sorted.owner[j]!]!; w++) expanded.push(sorted.values[j]!);
          const got = weightedPercentiles(sorted, weight, [0, 50, 90, 99, 100]);
          if (expanded.length === 0) expect(got.every((g) => g === null)).toBe(true);
          else [0, 50, 90, 99, 100].forEach((p, i) => expect(got[i]).toBeCloseTo(percentile(expanded, p), 9));
        },
      ),
    );
  });
});
