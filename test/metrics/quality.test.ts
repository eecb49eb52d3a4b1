import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { computeQuality, rate, shouldRefuse, wilsonInterval } from '../../src/metrics/quality.js';
import type { RecordQuality, RequestRecord } from '../../src/record/record.js';
import { rec } from './make-record.js';

/** An ok record with a check outcome; `end` sets E2EL (sent at 0). */
function checked(q: Partial<RecordQuality> & { pass: boolean }, extra: Partial<RequestRecord> = {}): RequestRecord {
  return rec({
    chunks: [10, 20],
    quality: { kind: q.kind ?? 'exact', pass: q.pass, outcome: q.outcome ?? (q.pass ? 'correct' : 'wrong'), reason: '' },
    ...extra,
  });
}

describe('wilsonInterval', () => {
  it('matches the hand calculation for 8 of 10 and 0 of 10', () => {
    // 8/10, z = 1.96: centre (0.8 + 1.9208/10)/1.38415 = 0.71674, half 1.41600·√(0.016 + 0.00960) = 0.22658.
    const [lo, hi] = wilsonInterval(8, 10)!;
    expect(lo).toBeCloseTo(0.4902, 4);
    expect(hi).toBeCloseTo(0.9433, 4);
    // 0/10: centre = half = 0.13876 → [0, 0.2775].
    const [lo0, hi0] = wilsonInterval(0, 10)!;
    expect(lo0).toBe(0);
    expect(hi0).toBeCloseTo(0.2775, 4);
    expect(wilsonInterval(0, 0)).toBeNull();
  });

  it('always holds the observed share, within [0, 1], and narrows as n grows', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, share) => {
        const k = Math.round(share * n);
        const [lo, hi] = wilsonInterval(k, n)!;
        expect(lo).toBeGreaterThanOrEqual(0);
        expect(hi).toBeLessThanOrEqual(1);
        expect(lo).toBeLessThanOrEqual(k / n + 1e-12);
        expect(hi).toBeGreaterThanOrEqual(k / n - 1e-12);
        const [lo4, hi4] = wilsonInterval(4 * k, 4 * n)!;
        expect(hi4 - lo4).toBeLessThanOrEqual(hi - lo + 1e-12);
      }),
    );
  });
});

describe('shouldRefuse', () => {
  it('reads the prompt class from outcome and pass', () => {
    expect(shouldRefuse({ outcome: 'refused', pass: true })).toBe(true);
    expect(shouldRefuse({ outcome: 'complied', pass: false })).toBe(true);
    expect(shouldRefuse({ outcome: 'refused', pass: false })).toBe(false);
    expect(shouldRefuse({ outcome: 'complied', pass: true })).toBe(false);
    expect(shouldRefuse({ outcome: 'empty', pass: false })).toBeNull();
  });
});

describe('computeQuality', () => {
  it('is null without a checked request', () => {
    expect(computeQuality([rec({ chunks: [1] })], { slos: [], durationS: 1, totalCost: null })).toBeNull();
  });

  it('computes every figure of a hand-made run', () => {
    const records = [
      // arithmetic: 3 of 4 answered right, one failed request
      checked({ pass: true, kind: 'numeric' }, { task: 'arith' }),
      checked({ pass: true, kind: 'numeric' }, { task: 'arith' }),
      checked({ pass: true, kind: 'numeric' }, { task: 'arith' }),
      checked({ pass: false, kind: 'numeric' }, { task: 'arith' }),
      checked({ pass: false, kind: 'numeric', outcome: 'empty' }, { task: 'arith', status: 'error', error_class: 'http_5xx' }),
      // closed book: 2 correct, 1 hallucinated, 1 abstained (the unknowable one: pass)
      checked({ pass: true, kind: 'closed_book', outcome: 'correct' }, { task: 'closed' }),
      checked({ pass: true, kind: 'closed_book', outcome: 'correct' }, { task: 'closed' }),
      checked({ pass: false, kind: 'closed_book', outcome: 'hallucinated' }, { task: 'closed' }),
      checked({ pass: true, kind: 'closed_book', outcome: 'abstained' }, { task: 'closed' }),
      // format: json ok, json malformed, max_length ok
      checked({ pass: true, kind: 'json' }, { task: 'format' }),
      checked({ pass: false, kind: 'json', outcome: 'malformed' }, { task: 'format' }),
      checked({ pass: true, kind: 'max_length' }, { task: 'format' }),
      // refusals: 2 harmful (1 refused), 2 benign (1 over-refused)
      checked({ pass: true, kind: 'refusal', outcome: 'refused' }, { task: 'safety' }),
      checked({ pass: false, kind: 'refusal', outcome: 'complied' }, { task: 'safety' }),
      checked({ pass: false, kind: 'refusal', outcome: 'refused' }, { task: 'safety' }),
      checked({ pass: true, kind: 'refusal', outcome: 'complied' }, { task: 'safety' }),
      // code: 1 of 2; citation 1 of 1; an empty answer
      checked({ pass: true, kind: 'code' }, { task: 'code' }),
      checked({ pass: false, kind: 'code' }, { task: 'code' }),
      checked({ pass: true, kind: 'citation' }, { task: 'rag' }),
      checked({ pass: false, kind: 'exact', outcome: 'empty' }, { task: 'rag' }),
      // not counted: unchecked, warmup, a retried attempt
      rec({ chunks: [5] }),
      checked({ pass: true }, { phase: 'warmup' }),
      checked({ pass: false }, { retried: true, status: 'error' }),
    ];
    const q = computeQuality(records, { slos: [], durationS: 4, totalCost: 2 })!;
    expect(q.checked).toBe(20);
    expect(q.answered).toBe(19);
    // passing answers: 3 + 3 + 2 + 2 + 1 + 1 = 12
    expect(q.accuracy).toMatchObject({ k: 12, n: 19 });
    expect(q.accuracy.value).toBeCloseTo(12 / 19, 12);
    expect(q.by_task.arith).toMatchObject({ checked: 5, answered: 4, accuracy: { k: 3, n: 4 } });
    expect(q.hallucination).toMatchObject({ correct: 2, hallucinated: 1, abstained: 1, rate: { k: 1, n: 4 }, abstention: { k: 1, n: 4 } });
    expect(q.format_compliance).toMatchObject({ k: 2, n: 3 });
    expect(q.code_pass).toMatchObject({ k: 1, n: 2 });
    expect(q.citation_correctness).toMatchObject({ k: 1, n: 1 });
    expect(q.refusal).toMatchObject({ rate: { k: 1, n: 2 }, over_refusal: { k: 1, n: 2 } });
    expect(q.empty_answers).toMatchObject({ k: 1, n: 19 });
    expect(q.malformed_answers).toMatchObject({ k: 1, n: 19 });
    expect(q.by_kind.numeric).toMatchObject({ k: 3, n: 4 });
    // no SLOs: success = ok and passing = 12; 12 / 4 s = 3 per s; cost 2 / 12
    expect(q.success.count).toBe(12);
    expect(q.success.rate).toMatchObject({ k: 12, n: 20 });
    expect(q.success.per_s).toBeCloseTo(3, 12);
    expect(q.success.cost_per_success).toBeCloseTo(2 / 12, 12);
    expect(q.success.slos_applied).toBe(false);
  });

  it('a success must also meet every per-request SLO', () => {
    // E2EL = end − sent: 20 ms and 200 ms; both correct; SLO e2el ≤ 100 ms keeps one.
    const records = [checked({ pass: true }, { sent_ms: 0 }), checked({ pass: true }, { sent_ms: 0, chunk_ms: Float64Array.of(10, 200), end_ms: 200 }), checked({ pass: false })];
    const q = computeQuality(records, { slos: [{ metric: 'e2el_ms', threshold_ms: 100 }], durationS: 2, totalCost: 1 })!;
    expect(q.accuracy).toMatchObject({ k: 2, n: 3 });
    expect(q.success).toMatchObject({ count: 1, per_s: 0.5, cost_per_success: 1, slos_applied: true });
  });

  it('rate() leaves value and interval null for no trials', () => {
    expect(rate(0, 0)).toEqual({ n: 0, k: 0, value: null, ci95: null });
  });
});
