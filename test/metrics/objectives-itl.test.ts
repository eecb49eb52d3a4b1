/**
 * ITL objectives where records share a step timeline (virtual time): evaluated from the per-step
 * weighted gaps (metrics/weighted-values.ts), never one value per gap, against the simple oracle
 * — the same records without their stretch, whose every gap is copied one by one. Max and every
 * percentile are exactly the oracle's, in every window; the mean agrees to the last bits.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseObjective } from '../../src/config/slo.js';
import { evaluateObjectives, OBJECTIVE_METRICS, statisticOf } from '../../src/metrics/index.js';
import { weightedStatistic } from '../../src/metrics/weighted-values.js';
import { emptyRecord, type RequestRecord } from '../../src/record/record.js';
import { STEP_STRETCH, type SharedTimeline } from '../../src/record/step-stretch.js';

const slo = (text: string) => parseObjective(text, OBJECTIVE_METRICS);

/** A measure-phase ok record on steps first … first+count−1 (count ≥ 1), with or without its stretch. */
function onSteps(ends: number[], tl: SharedTimeline, first: number, count: number, shared: boolean, id: number): RequestRecord {
  const chunks = Float64Array.from(ends.slice(first, first + count));
  const r: RequestRecord = { ...emptyRecord(id, Math.max(0, ends[first]! - 5)), status: 'ok', chunk_ms: chunks, first_token_ms: chunks[0]!, end_ms: chunks[count - 1]!, output_tokens: count, token_source: 'usage' };
  r.sent_ms = r.scheduled_ms;
  return shared ? Object.assign(r, { [STEP_STRETCH]: { timeline: tl, first, count } }) : r;
}

const arb = fc
  .array(fc.oneof(fc.double({ min: 0.001, max: 50, noNaN: true }), fc.constantFrom(1, 2.5, 10)), { minLength: 2, maxLength: 80 })
  .chain((steps) => {
    const ends: number[] = [];
    steps.reduce((t, d) => (ends.push(t + d), t + d), 0);
    const n = ends.length;
    const rec = fc.integer({ min: 0, max: n - 1 }).chain((first) => fc.record({ first: fc.constant(first), count: fc.integer({ min: 1, max: n - first }), shared: fc.boolean() }));
    return fc.record({ ends: fc.constant(ends), recs: fc.array(rec, { minLength: 1, maxLength: 40 }), window: fc.constantFrom(null, 20, 75, 300) });
  });

const STATS = ['p50', 'p90', 'p99', 'p99.9', 'p1', 'p33.3', 'mean', 'max'];

describe('ITL objectives from per-step gaps', () => {
  it('equal the per-gap oracle in every window: max and percentiles exactly, the mean to 1e-12 (property)', () => {
    fc.assert(
      fc.property(arb, ({ ends, recs, window }) => {
        const tl: SharedTimeline = { length: ends.length, at: (i) => ends[i]! };
        const stretched = recs.map((x, i) => onSteps(ends, tl, x.first, x.count, x.shared, i));
        const oracle = recs.map((x, i) => onSteps(ends, tl, x.first, x.count, false, i));
        const objectives = STATS.map((s) => slo(window === null ? `${s}(itl) <= 10ms` : `${s}(itl) <= 10ms over ${window}ms >= 50%`));
        const got = evaluateObjectives(stretched, objectives);
        const want = evaluateObjectives(oracle, objectives);
        got.forEach((g, i) => {
          const w = want[i]!;
          if (STATS[i] === 'mean') {
            for (const [a, b] of [[g.value, w.value], [g.worst_window?.value ?? null, w.worst_window?.value ?? null]] as const) {
              if (a === null || b === null) expect(a).toBe(b);
              else expect(Math.abs(a - b)).toBeLessThanOrEqual(1e-12 * Math.abs(b));
            }
            expect(g.windows.evaluated).toBe(w.windows.evaluated);
          } else expect(g, g.slo).toEqual(w);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('weighted statistics are those of the expanded values (property)', () => {
    const entry = fc.record({ v: fc.oneof(fc.double({ min: -100, max: 100, noNaN: true }), fc.constantFrom(0, 1, 7.5)), w: fc.integer({ min: 1, max: 6 }) });
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 50 }), fc.double({ min: 0, max: 100, noNaN: true }), (es, p) => {
        const values = Float64Array.from(es, (e) => e.v);
        const weights = Float64Array.from(es, (e) => e.w);
        const flat = Float64Array.from(es.flatMap((e) => Array.from({ length: e.w }, () => e.v)));
        const w = { values, weights, n: es.length };
        expect(weightedStatistic(w, { kind: 'percentile', p })).toBe(statisticOf(flat.slice(), { kind: 'percentile', p }));
        expect(weightedStatistic(w, { kind: 'max' })).toBe(statisticOf(flat.slice(), { kind: 'max' }));
        const mean = weightedStatistic(w, { kind: 'mean' })!;
        const ref = statisticOf(flat.slice(), { kind: 'mean' })!;
        expect(Math.abs(mean - ref)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(ref)));
      }),
      { numRuns: 500 },
    );
  });

  it('hand-computed: three records over five steps, p50 and max of ITL', () => {
    // Steps end at 10, 20, 35, 40, 60: gaps 10, 15, 5, 20. Records on steps 0–4, 1–3, 2–4:
    // gaps {10,15,5,20} ∪ {15,5} ∪ {5,20} = 5,5,5,10,15,15,20,20 → p50 = (10+15)/2, max 20.
    const ends = [10, 20, 35, 40, 60];
    const tl: SharedTimeline = { length: 5, at: (i) => ends[i]! };
    const rs = [onSteps(ends, tl, 0, 5, true, 0), onSteps(ends, tl, 1, 3, true, 1), onSteps(ends, tl, 2, 3, true, 2)];
    const [p50, max, mean] = evaluateObjectives(rs, [slo('p50(itl) <= 12ms'), slo('max(itl) <= 25ms'), slo('mean(itl) <= 12ms')]);
    expect(p50!.value).toBe(12.5);
    expect(p50!.pass).toBe(false);
    expect(max!.value).toBe(20);
    expect(mean!.value).toBe(95 / 8);
  });
});
