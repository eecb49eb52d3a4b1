import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { summarize } from '../../src/metrics/stats.js';
import { summarizeBatches, summarizeVisited } from '../../src/metrics/stream-summary.js';

const visit = (xs: number[]) => (emit: (v: number) => void) => xs.forEach(emit);

describe('summarizeVisited (two-pass, no pooled copy)', () => {
  it('gives exactly the percentiles, min and max of summarize; mean and std to rounding', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 400 }), (xs) => {
        const want = summarize(xs);
        const got = summarizeVisited(visit(xs));
        expect(got.count).toBe(want.count);
        // Numeric equality (=== treats −0 and +0 alike; which zero is the min depends on visit order).
        for (const k of ['min', 'max', 'p50', 'p90', 'p95', 'p99', 'p99_9'] as const) expect(got[k] === want[k], `${k}: ${got[k]} vs ${want[k]}`).toBe(true);
        expect(got.mean!).toBeCloseTo(want.mean!, 6);
        expect(got.std!).toBeCloseTo(want.std!, 6);
      }),
      { numRuns: 300 },
    );
  });

  it('summarizeBatches gives the same figures bit for bit, however the values are cut into batches', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { maxLength: 300 }), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1 }), (xs, cuts) => {
        const batched = summarizeBatches((emit) => {
          const buf = new Float64Array(16);
          let i = 0;
          for (let c = 0; i < xs.length; c++) {
            const k = Math.min(cuts[c % cuts.length]!, xs.length - i);
            for (let j = 0; j < k; j++) buf[j] = xs[i + j]!;
            emit(buf, k);
            i += k;
            if (k === 0 && cuts.every((x) => x === 0)) break;
          }
        });
        if (cuts.every((x) => x === 0) && xs.length > 0) return;
        expect(batched).toEqual(summarizeVisited(visit(xs)));
      }),
      { numRuns: 200 },
    );
  });

  it('values gathered in pass 2, in pass 3 (a wanted bucket above the limit) or both: the exact percentiles; two visits when no bucket is too large', () => {
    // Many distinct values in one histogram bucket (10 + i·1e-9) beside spread ones: at limit 5
    // that bucket waits for pass 3 while the others are gathered in pass 2.
    const value = fc.oneof(fc.double({ min: -1e3, max: 1e3, noNaN: true }), fc.integer({ min: 0, max: 40 }).map((i) => 10 + i * 1e-9));
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 200 }), (xs) => {
        const counted = (limit?: number) => {
          let visits = 0;
          const d = summarizeBatches((emit) => {
            visits++;
            emit(Float64Array.from(xs), xs.length);
          }, limit);
          return { d, visits };
        };
        const want = summarize(xs);
        const runs = [counted(), counted(5), counted(0)];
        for (const { d } of runs) for (const k of ['min', 'max', 'p50', 'p90', 'p95', 'p99', 'p99_9'] as const) expect(d[k] === want[k], `${k}: ${d[k]} vs ${want[k]}`).toBe(true);
        expect(runs[1]!.d).toEqual(runs[0]!.d);
        expect(runs[2]!.d).toEqual(runs[0]!.d);
        expect(runs[0]!.visits).toBe(2);
      }),
      { numRuns: 40 },
    );
  });

  it('handles heavy ties and values within one histogram bucket', () => {
    const xs = Array.from({ length: 10_000 }, (_, i) => 10 + (i % 7) * 1e-9);
    expect(summarizeVisited(visit(xs))).toMatchObject({ p50: summarize(xs).p50, p99_9: summarize(xs).p99_9 });
  });

  it('numpy values on a known vector, and the empty case', () => {
    // np.percentile([1,2,3,4], [50, 90]) = [2.5, 3.7]
    const d = summarizeVisited(visit([4, 1, 3, 2]));
    expect(d.p50).toBe(2.5);
    expect(d.p90).toBeCloseTo(3.7, 12);
    expect(summarizeVisited(visit([])).count).toBe(0);
    expect(summarizeVisited(visit([])).p50).toBeNull();
  });
});
