import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeMetrics } from '../../src/metrics/compute.js';
import { busyMs, computeCost, requestTimeSplit } from '../../src/metrics/cost.js';
import { rec } from './make-record.js';

// Three ok requests of 1,000 prompt tokens and 3 output tokens, one failure; window 0 → 36 s.
const records = [
  rec({ sent_ms: 0, chunks: [2000, 4000, 6000], prompt_tokens: 1000 }), // TTFT 2000, E2EL 6000
  rec({ sent_ms: 10_000, chunks: [12_000, 14_000, 16_000], prompt_tokens: 1000 }), // TTFT 2000, E2EL 6000
  rec({ sent_ms: 20_000, end_ms: 21_000, status: 'error', error_class: 'http_5xx' }),
  rec({ sent_ms: 30_000, chunks: [31_000, 33_000, 36_000], prompt_tokens: 1000 }), // TTFT 1000, E2EL 6000
];
const inputs = { gpu_hour_cost: 3, gpus: 2, currency: 'USD', gpu_type: 'h100', price_source: '--gpu-hour-cost' };

describe('cost figures (hand-checked)', () => {
  it('GPU-hours, per request, per successful request, per token, split and full load', () => {
    const m = computeMetrics(records, { slos: [{ metric: 'ttft_ms', threshold_ms: 1500 }] });
    const split = requestTimeSplit(records);
    // Σ TTFT / Σ E2EL = (2000 + 2000 + 1000) / (6000 × 3) = 5/18
    expect(split).toEqual({ method: 'request_time', input_share: 5 / 18 });
    const c = computeCost(m, records, inputs, split);
    expect(c.duration_s).toBe(36);
    // 2 GPUs × 36 s / 3600 = 0.02 GPU-hours × $3 = $0.06
    expect(c.gpu_hours).toBeCloseTo(0.02, 12);
    expect(c.total_cost).toBeCloseTo(0.06, 12);
    // $0.06 / 3 ok requests = $0.02; only the third meets TTFT ≤ 1500 ms: $0.06 per good request
    expect(c.per_request).toBeCloseTo(0.02, 12);
    expect(c.good_requests).toBe(1);
    expect(c.slos_applied).toBe(true);
    expect(c.per_good_request).toBeCloseTo(0.06, 12);
    // input: $0.06 × 5/18 = $0.016667 over 3,000 tokens → $5.5556 per 1M, $0.0055556 per 1K
    expect(c.input.tokens).toBe(3000);
    expect(c.input.cost).toBeCloseTo(0.06 * (5 / 18), 12);
    expect(c.input.per_1m).toBeCloseTo(5.5555556, 6);
    expect(c.input.per_1k).toBeCloseTo(0.0055555556, 9);
    // output: $0.06 × 13/18 = $0.043333 over 9 tokens → $4,814.81 per 1M
    expect(c.output.tokens).toBe(9);
    expect(c.output.per_1m).toBeCloseTo(4814.8148148, 5);
    // all tokens: $0.06 / 3,009 × 1e6 = $19.9402
    expect(c.per_1m_tokens).toBeCloseTo(19.940179, 5);
    // busy: [0,6] + [10,16] + [20,21] + [30,36] = 19 s of 36 → utilization 19/36
    expect(c.utilization.busy_s).toBeCloseTo(19, 9);
    expect(c.utilization.value).toBeCloseTo(19 / 36, 12);
    // at full load: $0.02 × 19/36 = $0.010556 per request
    expect(c.at_full_load.per_request).toBeCloseTo(0.0105556, 6);
    expect(c.at_full_load.total_cost).toBeCloseTo(0.06 * (19 / 36), 12);
  });

  it('time a request waited at the client\'s concurrency gate is neither GPU time nor busy time', () => {
    // scheduled at 0, sent at 1000 (waited 1 s for a free slot), first token 1100, end 1500
    const waited = [rec({ scheduled_ms: 0, sent_ms: 1000, chunks: [1100, 1300, 1500] })];
    // TTFT 100 / E2EL 500 from the send, not 1100 / 1500 from the schedule
    expect(requestTimeSplit(waited).input_share).toBeCloseTo(0.2, 12);
    expect(busyMs(waited, { start_ms: 0, end_ms: 1500 })).toBe(500);
  });

  it('without SLOs a successful request is an ok one', () => {
    const c = computeCost(computeMetrics(records), records, inputs, { method: 'given', input_share: 0.5 });
    expect(c.slos_applied).toBe(false);
    expect(c.good_requests).toBe(3);
    expect(c.per_good_request).toBe(c.per_request);
    expect(c.input.cost).toBeCloseTo(0.03, 12);
  });

  it('busy time is the length of the union of request intervals (property, against a 1-ms grid)', () => {
    const interval = fc.tuple(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 50 }));
    fc.assert(
      fc.property(fc.array(interval, { minLength: 1, maxLength: 20 }), (spans) => {
        const rs = spans.map(([a, len]) => rec({ sent_ms: a, end_ms: a + len }));
        const covered = new Set<number>();
        for (const [a, len] of spans) for (let t = a; t < a + len; t++) covered.add(t);
        expect(busyMs(rs, { start_ms: 0, end_ms: 1000 })).toBe(covered.size);
      }),
    );
  });
});
