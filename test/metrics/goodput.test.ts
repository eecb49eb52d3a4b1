import { describe, expect, it } from 'vitest';
import { computeMetrics } from '../../src/metrics/compute.js';
import { checkSlos, isGood, meetsSlo, sloMetricFromName } from '../../src/metrics/goodput.js';
import type { GoodputSlo as Slo } from '../../src/config/slo.js';
import { rec } from './make-record.js';

// Same requests as the worked example (compute.test.ts), window 1000 → 2500 ms = 1.5 s.
const A = rec({ sent_ms: 1000, chunks: [1050, 1100, 1150, 1200, 1250] }); // TTFT 50, TPOT 50, max gap 50
const B = rec({ scheduled_ms: 1100, sent_ms: 1120, chunks: [1220], end_ms: 1230 }); // TTFT 100 (120 from schedule), 1 token
const C = rec({ sent_ms: 1200, chunks: [1300, 1400, 1700], output_tokens: 6 }); // TTFT 100, TPOT 80, max gap 300
const D = rec({ sent_ms: 1300, end_ms: 2500, status: 'error', error_class: 'http_5xx' });
const records = [A, B, C, D];

function good(slos: Slo[]) {
  const g = computeMetrics(records, { slos }).goodput;
  if (g === null) throw new Error('goodput missing');
  return g;
}

describe('goodput', () => {
  it('counts ok requests meeting every SLO, each ≤', () => {
    // TTFT ≤ 100: A 50 ✓, B 100 ✓ (≤), C 100 ✓; TPOT ≤ 60: A 50 ✓, B 1 token ✓, C 80 ✗; D failed
    const g = good([
      { metric: 'ttft_ms', threshold_ms: 100 },
      { metric: 'tpot_ms', threshold_ms: 60 },
    ]);
    expect(g.good).toBe(2);
    // 2 good / 1.5 s
    expect(g.request_per_s).toBeCloseTo(4 / 3, 12);
    // (5 + 1) tokens / 1.5 s = 4 tok/s
    expect(g.output_tokens_per_s).toBe(4);
    // 2 good of 4 attempts (the failed one counts in the denominator)
    expect(g.attained).toBe(0.5);
    expect(g.slos).toEqual([
      { metric: 'ttft_ms', threshold_ms: 100 },
      { metric: 'tpot_ms', threshold_ms: 60 },
    ]);
  });

  it('lets a 1-token request meet any TPOT SLO, as vLLM does', () => {
    expect(meetsSlo(B, { metric: 'tpot_ms', threshold_ms: 0 })).toBe(true);
    // A: TPOT 50 > 0
    expect(meetsSlo(A, { metric: 'tpot_ms', threshold_ms: 0 })).toBe(false);
  });

  it('applies an ITL SLO to every gap of the request', () => {
    // max gaps: A 50 ✓, B none ✓, C 300 ✗ (its other gap, 100, would pass)
    expect(good([{ metric: 'itl_ms', threshold_ms: 100 }]).good).toBe(2);
    expect(meetsSlo(C, { metric: 'itl_ms', threshold_ms: 299.9 })).toBe(false);
    expect(meetsSlo(C, { metric: 'itl_ms', threshold_ms: 300 })).toBe(true);
  });

  it('bounds TTFT and E2EL from schedule', () => {
    // TTFT from schedule ≤ 110: A 50 ✓, B 120 ✗, C 100 ✓
    expect(good([{ metric: 'ttft_from_schedule_ms', threshold_ms: 110 }]).good).toBe(2);
    expect(isGood(B, [{ metric: 'ttft_ms', threshold_ms: 110 }])).toBe(true);
    // E2EL from schedule ≤ 125: A 250 ✗, B 130 ✗, C 500 ✗
    expect(good([{ metric: 'e2el_from_schedule_ms', threshold_ms: 125 }]).good).toBe(0);
    // E2EL ≤ 250: A 250 ✓, B 110 ✓, C 500 ✗
    expect(good([{ metric: 'e2el_ms', threshold_ms: 250 }]).good).toBe(2);
  });

  it('never counts a failed request, and fails a TTFT SLO without a first token', () => {
    expect(isGood(D, [])).toBe(false);
    const noStream = rec({ sent_ms: 0, end_ms: 100, output_tokens: 3 });
    expect(meetsSlo(noStream, { metric: 'ttft_ms', threshold_ms: 1e9 })).toBe(false);
    expect(meetsSlo(noStream, { metric: 'e2el_ms', threshold_ms: 100 })).toBe(true);
  });

  it('rejects bad thresholds and names', () => {
    expect(() => checkSlos([{ metric: 'ttft_ms', threshold_ms: -1 }])).toThrow(/ttft_ms/);
    expect(() => checkSlos([{ metric: 'ttft_ms', threshold_ms: Number.NaN }])).toThrow(RangeError);
    expect(() => checkSlos([{ metric: 'bogus' as 'ttft_ms', threshold_ms: 1 }])).toThrow(/bogus/);
    expect(sloMetricFromName('ttft')).toBe('ttft_ms');
    expect(sloMetricFromName('e2el_from_schedule_ms')).toBe('e2el_from_schedule_ms');
    expect(sloMetricFromName('schedule_lag')).toBeNull();
  });

  it('is null for an empty SLO list', () => {
    expect(computeMetrics(records, { slos: [] }).goodput).toBeNull();
  });
});
