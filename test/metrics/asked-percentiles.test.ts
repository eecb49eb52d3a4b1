import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeMetrics } from '../../src/metrics/compute.js';
import { percentileWord, summarize } from '../../src/metrics/stats.js';
import { summarizeBatches, summarizeVisited } from '../../src/metrics/stream-summary.js';
import { percentile } from '../../src/util/percentile.js';
import type { RequestRecord } from '../../src/record/record.js';
import { rec } from './make-record.js';

const visit = (xs: number[]) => (emit: (v: number) => void) => xs.forEach(emit);

describe('--metric-percentiles: any percentile, exactly (docs/metrics.md §Statistics)', () => {
  it('hand-computed cases: h = (n − 1) · p / 100, linear between the closest ranks', () => {
    // 1..10: p25 h = 9 · 0.25 = 2.25 → 3 + 0.25 · (4 − 3) = 3.25; p75 h = 6.75 → 7.75;
    // p99.99 h = 8.9991 → 9 + 0.9991 · 1 = 9.9991 (numpy's _lerp: 10 − 1 · (1 − 0.9991)).
    const ten = [7, 3, 10, 1, 9, 2, 8, 4, 6, 5];
    for (const d of [summarize(ten, [25, 75, 99.99]), summarizeVisited(visit(ten), [25, 75, 99.99])]) {
      expect(d.percentiles!['25']).toBe(3.25);
      expect(d.percentiles!['75']).toBe(7.75);
      expect(d.percentiles!['99.99']).toBeCloseTo(9.9991, 12);
      // The fixed ones are unchanged: p50 h = 4.5 → 5.5.
      expect(d.p50).toBe(5.5);
    }
    // [1, 2, 3, 4]: p25 h = 0.75 → 1.75; p75 h = 2.25 → 3.25.
    expect(summarize([4, 1, 3, 2], [25, 75]).percentiles).toEqual({ '25': 1.75, '75': 3.25 });
    // Five values 10 20 30 40 50: p25 h = 1 → 20 exactly; p75 h = 3 → 40; p12.5 h = 0.5 → 15.
    expect(summarizeVisited(visit([50, 10, 40, 20, 30]), [12.5, 25, 75]).percentiles).toEqual({ '12.5': 15, '25': 20, '75': 40 });
    // No values: each asked one is null; none asked: no field at all.
    expect(summarize([], [25]).percentiles).toEqual({ '25': null });
    expect(summarizeVisited(visit([]), [25]).percentiles).toEqual({ '25': null });
    expect(summarize([1, 2])).not.toHaveProperty('percentiles');
    expect(summarizeVisited(visit([1, 2]))).not.toHaveProperty('percentiles');
  });

  it('keys are spelled as vLLM spells p (str(int(p)) if int(p) == p else str(p))', () => {
    expect(percentileWord(25)).toBe('25');
    expect(percentileWord(99.9)).toBe('99.9');
    expect(percentileWord(99.99)).toBe('99.99');
    expect(percentileWord(0.0001)).toBe('0.0001');
    // Python's repr uses an exponent below 1e-4, with two digits: str(5e-05) == '5e-05'.
    expect(percentileWord(0.00005)).toBe('5e-05');
    expect(percentileWord(1.5e-7)).toBe('1.5e-07');
  });

  it('the streaming summary equals a sorted-array oracle for any asked percentiles, whichever pass gathers the values', () => {
    const value = fc.oneof(fc.double({ min: -1e4, max: 1e4, noNaN: true }), fc.integer({ min: 0, max: 30 }).map((i) => 10 + i * 1e-9));
    const p = fc.double({ min: 1e-6, max: 99.999999, noNaN: true });
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 300 }), fc.uniqueArray(p, { minLength: 1, maxLength: 8 }), (xs, ps) => {
        const sorted = Float64Array.from(xs).sort();
        for (const limit of [undefined, 5, 0]) {
          const d = summarizeBatches((emit) => emit(Float64Array.from(xs), xs.length), limit, ps);
          for (const q of ps) {
            const want = percentile(sorted, q);
            const got = d.percentiles![percentileWord(q)]!;
            expect(got === want, `p${q} (limit ${limit}): ${got} vs ${want}`).toBe(true);
          }
        }
      }),
      { numRuns: 60, seed: 24 },
    );
  });
});

/** A random run: ok and failed requests, chunks on a shared step grid (ties, several tokens a chunk). */
const runArb = fc.array(
  fc.record({
    sent: fc.integer({ min: 0, max: 5000 }),
    ttftSteps: fc.integer({ min: 1, max: 40 }),
    gaps: fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 30 }),
    extraTokens: fc.integer({ min: 0, max: 3 }),
    failed: fc.boolean(),
    step: fc.constantFrom(7.5, 10, 13.25),
  }),
  { minLength: 1, maxLength: 60 },
);

type Run = typeof runArb extends fc.Arbitrary<infer T> ? T : never;

function toRecords(run: Run): RequestRecord[] {
  return run.map((r) => {
    if (r.failed) return rec({ sent_ms: r.sent, end_ms: r.sent + r.ttftSteps * r.step, status: 'error', error_class: 'http_5xx' });
    const chunks = [r.sent + r.ttftSteps * r.step];
    for (const g of r.gaps) chunks.push(chunks[chunks.length - 1]! + g * r.step);
    return rec({ sent_ms: r.sent, chunks, output_tokens: chunks.length + r.extraTokens });
  });
}

describe('computeMetrics with percentiles: TTFT, TPOT, ITL, E2EL equal the sorted-array oracle over random runs', () => {
  it('every asked percentile of the four metrics, and the fixed ones unchanged', () => {
    const ps = fc.uniqueArray(fc.double({ min: 0.001, max: 99.999, noNaN: true }), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(runArb, ps, (run, asked) => {
        const records = toRecords(run);
        const m = computeMetrics(records, { percentiles: asked });
        const plain = computeMetrics(records);
        // The oracle: each metric's values straight from the definitions, sorted.
        const ok = records.filter((r) => r.status === 'ok');
        const ttft = ok.map((r) => r.first_token_ms! - r.sent_ms);
        const e2el = ok.map((r) => r.end_ms - r.sent_ms);
        const tpot = ok.filter((r) => r.output_tokens > 1).map((r) => (r.end_ms - r.sent_ms - (r.first_token_ms! - r.sent_ms)) / (r.output_tokens - 1));
        const itl = ok.flatMap((r) => Array.from(r.chunk_ms).slice(1).map((t, i) => t - r.chunk_ms[i]!));
        const cases = [
          ['ttft_ms', ttft],
          ['tpot_ms', tpot],
          ['itl_ms', itl],
          ['e2el_ms', e2el],
        ] as const;
        for (const [key, values] of cases) {
          const sorted = Float64Array.from(values).sort();
          const d = m.latency[key];
          for (const q of asked) {
            const want = sorted.length === 0 ? null : percentile(sorted, q);
            expect(d.percentiles![percentileWord(q)], `${key} p${q}`).toBe(want);
          }
          const { percentiles: _, ...fixed } = d;
          expect(fixed).toEqual(plain.latency[key]);
        }
      }),
      { numRuns: 120, seed: 24 },
    );
  });

  it('refuses a percentile outside (0, 100)', () => {
    const records = [rec({ sent_ms: 0, chunks: [10, 20] })];
    expect(() => computeMetrics(records, { percentiles: [100] })).toThrow(RangeError);
    expect(() => computeMetrics(records, { percentiles: [0] })).toThrow(RangeError);
  });
});
