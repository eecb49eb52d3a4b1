import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { binBatches, binDistribution, type ValueSource } from '../../src/report/data/bins.js';

const from = (values: number[]): ValueSource => (emit) => values.forEach(emit);

describe('binDistribution', () => {
  it('bins a narrow range linearly, by hand', () => {
    // 4 fine bins over [1, 5]: width 1 → [1,2) [2,3) [3,4) [4,5]; merge 2 → [1,3) [3,5].
    const d = binDistribution(from([1, 1.5, 2, 4, 5]), { fine: 4, merge: 2 });
    expect(d.scale).toBe('linear');
    expect(d.bins).toEqual([
      { lo: 1, hi: 3, count: 3 },
      { lo: 3, hi: 5, count: 2 },
    ]);
    // CDF at each fine bin's upper edge: 2 values < 2, 3 ≤ 3, 3 ≤ 4, 5 ≤ 5.
    expect(d.cdf).toEqual([
      { x: 1, p: 0 },
      { x: 2, p: 0.4 },
      { x: 3, p: 0.6 },
      { x: 4, p: 0.6 },
      { x: 5, p: 1 },
    ]);
  });

  it('uses a log scale over a decade or more and keeps zeros apart', () => {
    // log10 range [0, 2] in 2 fine bins: [1,10) [10,100]; the two zeros start the CDF.
    const d = binDistribution(from([0, 0, 1, 5, 10, 100]), { fine: 2, merge: 1 });
    expect(d.scale).toBe('log');
    expect(d.at_or_below_zero).toBe(2);
    expect(d.bins).toEqual([
      { lo: 1, hi: 10, count: 2 },
      { lo: 10, hi: 100, count: 2 },
    ]);
    expect(d.cdf.map((c) => c.p)).toEqual([2 / 6, 4 / 6, 1].map((p) => Number(p.toFixed(6))));
  });

  it('is empty for no values and one bin wide for one value', () => {
    expect(binDistribution(from([]))).toMatchObject({ count: 0, bins: [], cdf: [] });
    const one = binDistribution(from([7, 7, 7]), { fine: 4, merge: 4 });
    expect(one.bins).toEqual([{ lo: 7, hi: 7, count: 3 }]);
    expect(one.cdf.at(-1)!.p).toBe(1);
  });

  it('accounts for every value, and its CDF climbs to 1 (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 300 }), (values) => {
        const d = binDistribution(from(values));
        const binned = d.bins.reduce((s, b) => s + b.count, 0);
        expect(binned + d.at_or_below_zero).toBe(values.length);
        expect(d.bins.length).toBeLessThanOrEqual(40);
        for (let i = 1; i < d.cdf.length; i++) expect(d.cdf[i]!.p).toBeGreaterThanOrEqual(d.cdf[i - 1]!.p);
        expect(d.cdf.at(-1)!.p).toBe(1);
        // The CDF at an edge is at least the true fraction of values strictly below that edge.
        const mid = d.cdf[Math.floor(d.cdf.length / 2)]!;
        const below = values.filter((v) => v < mid.x * (1 - 1e-5)).length / values.length;
        expect(mid.p).toBeGreaterThanOrEqual(below - 1e-6);
      }),
    );
  });
  it('values given in weighted batches (the ITL gaps) bin as the same values given one by one (property)', () => {
    const value = fc.oneof(fc.double({ min: -5, max: 1e5, noNaN: true }), fc.constant(0), fc.constant(Number.NaN), fc.integer({ min: 1, max: 50 }));
    const item = fc.record({ v: value, w: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }) });
    fc.assert(
      fc.property(fc.array(fc.array(item, { maxLength: 9 }), { minLength: 1, maxLength: 40 }), (batches) => {
        const one: number[] = [];
        for (const b of batches) for (const { v, w } of b) for (let k = 0; k < (w ?? 1); k++) one.push(v);
        const batched = binBatches((emit) => {
          // A batch is weighted when any of its values is; the buffers are reused between batches, as the visitors do.
          const xs = new Float64Array(16);
          const ws = new Float64Array(16);
          for (const b of batches) {
            const weighted = b.some((x) => x.w !== null);
            b.forEach(({ v, w }, i) => {
              xs[i] = v;
              ws[i] = w ?? 1;
            });
            emit(xs, b.length, weighted ? ws : null);
          }
        }, { fine: 20, merge: 4 });
        expect(batched).toEqual(binDistribution(from(one), { fine: 20, merge: 4 }));
      }),
    );
  });

  it('bins every value by its own log10, repeated or not, however many distinct values (property)', () => {
    // Values drawn from a small pool repeat (the memo answers them), others are fresh; enough
    // distinct ones that slots of the memo are overwritten. The oracle: each value's bin computed.
    const pool = fc.array(fc.double({ min: 1e-3, max: 1e4, noNaN: true }), { minLength: 1, maxLength: 20 });
    fc.assert(
      fc.property(pool, fc.array(fc.nat(), { minLength: 1, maxLength: 2000 }), fc.integer({ min: 0, max: 2 ** 31 }), (p, picks, seed) => {
        let x = seed;
        const values = picks.map((k) => (k % 3 === 0 ? p[k % p.length]! : ((x = (x * 48271) % 2147483647), (x / 2147483647) * 1e4)));
        values.push(0, 1e-3, 1e4);
        expect(binDistribution(from(values), { fine: 50, merge: 5 })).toEqual(oracle(values, 50, 5));
      }),
      { numRuns: 60 },
    );
    // 200,000 distinct values: most memo slots are overwritten many times.
    const many = Array.from({ length: 200_000 }, (_, i) => 0.001 + i * 0.0371);
    expect(binDistribution(from([...many, ...many.slice(0, 5000)]))).toEqual(oracle([...many, ...many.slice(0, 5000)], 200, 5));
  });
});

/** binDistribution one value at a time, each bin computed from the value itself (the definition). */
function oracle(values: number[], fine: number, merge: number) {
  const ok = values.filter((v) => !Number.isNaN(v));
  const min = ok.reduce((a, v) => Math.min(a, v), Infinity);
  const max = ok.reduce((a, v) => Math.max(a, v), -Infinity);
  const minPositive = ok.reduce((a, v) => (v > 0 ? Math.min(a, v) : a), Infinity);
  const log = minPositive < Infinity && max / minPositive >= 10;
  const lo = log ? Math.log10(minPositive) : min;
  const span = (log ? Math.log10(max) : max) - lo;
  const edge = (i: number) => (log ? 10 ** (lo + (span * i) / fine) : lo + (span * i) / fine);
  const counts = new Array<number>(fine).fill(0);
  let below = 0;
  for (const v of ok) {
    if (log && v <= 0) below++;
    else counts[Math.min(fine - 1, Math.max(0, Math.floor((span === 0 ? 0 : ((log ? Math.log10(v) : v) - lo) / span) * fine)))]!++;
  }
  const round = (v: number) => Number(v.toPrecision(6));
  const bins = [];
  for (let i = 0; i < fine; i += merge) bins.push({ lo: round(edge(i)), hi: round(edge(Math.min(fine, i + merge))), count: counts.slice(i, i + merge).reduce((a, b) => a + b, 0) });
  const cdf = [{ x: round(edge(0)), p: Number((below / ok.length).toFixed(6)) }];
  let cum = below;
  for (let i = 0; i < fine; i++) cdf.push({ x: round(edge(i + 1)), p: Number(((cum += counts[i]!) / ok.length).toFixed(6)) });
  return { count: ok.length, scale: log ? 'log' : 'linear', at_or_below_zero: log ? below : 0, bins, cdf };
}
