import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { percentile, REPORTED_PERCENTILES, summarize } from '../../src/metrics/stats.js';

/** Oracle: the textbook formula on a plainly sorted copy. */
function oracle(values: number[], p: number): number {
  const x = [...values].sort((a, b) => a - b);
  const h = ((x.length - 1) * p) / 100;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, x.length - 1);
  return x[lo]! + (h - lo) * (x[hi]! - x[lo]!);
}

const finite = fc.double({ min: -1e9, max: 1e9, noNaN: true, noDefaultInfinity: true });
const sortedArray = fc.array(finite, { minLength: 1, maxLength: 200 }).map((a) => Float64Array.from(a).sort());
const pct = fc.double({ min: 0, max: 100, noNaN: true });

describe('percentile', () => {
  it('matches numpy on [1, 2, 3, 4]', () => {
    const x = [1, 2, 3, 4];
    // h = 3 · 0.5 = 1.5 → 2 + 0.5 · (3 − 2) = 2.5
    expect(percentile(x, 50)).toBe(2.5);
    // h = 3 · 0.9 = 2.7 → 3 + 0.7 · (4 − 3) = 3.7
    expect(percentile(x, 90)).toBe(3.7);
    // h = 3 · 0.99 = 2.97 → 3.97 (numpy prints 3.9699999999999998: same float steps)
    expect(percentile(x, 99)).toBe(3.9699999999999998);
    expect(percentile(x, 99.9)).toBe(3.9970000000000003);
  });

  it('matches numpy 2.4 bit for bit on awkward vectors', () => {
    // Expected values printed by repr(float(np.percentile(v, p))).
    const v = [0.1, 0.2, 0.7, 1.3, 2.9, 10.0];
    const expected: Array<[number, number]> = [
      [0, 0.1],
      [10, 0.15000000000000002],
      [33.3, 0.5324999999999999],
      [50, 1.0],
      [90, 6.45],
      [95, 8.225],
      [99, 9.645000000000001],
      [99.9, 9.964500000000006],
      [100, 10.0],
    ];
    for (const [p, want] of expected) expect(percentile(v, p)).toBe(want);
    const w = Float64Array.from([3.3, 1.1, 7.7, 2.2, 9.9, 4.4, 100.5]).sort();
    expect(percentile(w, 25)).toBe(2.75);
    expect(percentile(w, 50)).toBe(4.4);
    expect(percentile(w, 90)).toBe(46.14000000000003);
    expect(percentile(w, 99)).toBe(95.06399999999995);
    expect(percentile(w, 99.9)).toBe(99.95640000000006);
  });

  it('of one value is that value', () => {
    expect(percentile([42], 0)).toBe(42);
    expect(percentile([42], 99.9)).toBe(42);
  });

  it('rejects an empty array and p outside [0, 100]', () => {
    expect(() => percentile([], 50)).toThrow(RangeError);
    expect(() => percentile([1], -1)).toThrow(RangeError);
    expect(() => percentile([1], 100.1)).toThrow(RangeError);
    expect(() => percentile([1], Number.NaN)).toThrow(RangeError);
  });

  it('agrees with the sorted-array oracle', () => {
    fc.assert(
      fc.property(fc.array(finite, { minLength: 1, maxLength: 200 }), pct, (a, p) => {
        const got = percentile(Float64Array.from(a).sort(), p);
        const want = oracle(a, p);
        // Both round differently inside (b − a)·t; the error scales with the values' magnitude.
        const scale = Math.max(1, ...a.map(Math.abs));
        expect(Math.abs(got - want)).toBeLessThanOrEqual(1e-12 * scale);
      }),
    );
  });

  it('is monotone in p and bounded by min and max', () => {
    fc.assert(
      fc.property(sortedArray, pct, pct, (x, p, q) => {
        const [lo, hi] = p <= q ? [p, q] : [q, p];
        const a = percentile(x, lo);
        const b = percentile(x, hi);
        expect(a).toBeLessThanOrEqual(b);
        expect(a).toBeGreaterThanOrEqual(x[0]!);
        expect(b).toBeLessThanOrEqual(x[x.length - 1]!);
      }),
    );
  });

  it('gives min at p0 and max at p100', () => {
    fc.assert(
      fc.property(sortedArray, (x) => {
        // Numeric equality: for x = [−0, 0] numpy's lerp also yields +0 at p0 (−0 + 0·0).
        expect(percentile(x, 0) === x[0]).toBe(true);
        expect(percentile(x, 100) === x[x.length - 1]).toBe(true);
      }),
    );
  });
});

describe('summarize', () => {
  it('gives all-null stats for no values, never NaN', () => {
    expect(summarize([])).toEqual({
      count: 0,
      mean: null,
      std: null,
      min: null,
      max: null,
      p50: null,
      p90: null,
      p95: null,
      p99: null,
      p99_9: null,
    });
  });

  it('computes mean and population std', () => {
    // mean = 40 / 8 = 5; Σ(x − 5)² = 9+1+1+1+0+0+4+16 = 32; std = sqrt(32 / 8) = 2
    const d = summarize([2, 4, 4, 4, 5, 5, 7, 9]);
    expect(d.count).toBe(8);
    expect(d.mean).toBe(5);
    expect(d.std).toBe(2);
    expect(d.min).toBe(2);
    expect(d.max).toBe(9);
    // h = 7 · 0.5 = 3.5 → 4 + 0.5 · (5 − 4) = 4.5
    expect(d.p50).toBe(4.5);
  });

  it('matches numpy mean and std on an unsorted vector', () => {
    const d = summarize([3.3, 1.1, 7.7, 2.2, 9.9, 4.4, 100.5]);
    expect(d.mean).toBeCloseTo(18.442857142857143, 12);
    expect(d.std).toBeCloseTo(33.621585631974035, 12);
    expect(d.p90).toBe(46.14000000000003);
  });

  it('does not modify its input', () => {
    const input = [3, 1, 2];
    summarize(input);
    expect(input).toEqual([3, 1, 2]);
    const typed = Float64Array.from([3, 1, 2]);
    summarize(typed);
    expect([...typed]).toEqual([3, 1, 2]);
  });

  it('keeps min ≤ p50 ≤ … ≤ p99.9 ≤ max and min ≤ mean ≤ max', () => {
    fc.assert(
      fc.property(fc.array(finite, { minLength: 1, maxLength: 300 }), (a) => {
        const d = summarize(a);
        const chain = [d.min, ...REPORTED_PERCENTILES.map(([, k]) => d[k]), d.max] as number[];
        for (let i = 1; i < chain.length; i++) expect(chain[i - 1]!).toBeLessThanOrEqual(chain[i]!);
        expect(d.mean!).toBeGreaterThanOrEqual(d.min!);
        expect(d.mean!).toBeLessThanOrEqual(d.max!);
        expect(d.std!).toBeGreaterThanOrEqual(0);
      }),
    );
  });

  it('keeps the mean of identical values inside [min, max] despite rounding', () => {
    // 0.1 + 0.1 + 0.1 = 0.30000000000000004; / 3 would exceed 0.1 without clamping.
    expect(summarize([0.1, 0.1, 0.1]).mean).toBe(0.1);
  });

  it('summarizes a million values', () => {
    const n = 1_000_000;
    const a = new Float64Array(n);
    for (let i = 0; i < n; i++) a[i] = (i * 7919) % n; // a permutation of 0 … n−1
    const d = summarize(a);
    // sorted x[i] = i: p99 → h = 999999 · 0.99 = 989999.01 → 989999.01
    expect(d.p99).toBeCloseTo(989999.01, 6);
    expect(d.mean).toBe((n - 1) / 2);
    expect(d.max).toBe(n - 1);
  });
});
