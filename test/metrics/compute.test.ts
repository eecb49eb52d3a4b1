import { describe, expect, it } from 'vitest';
import { computeMetrics, computeMetricsByStage, computeMetricsByTask } from '../../src/metrics/compute.js';
import { rec } from './make-record.js';

/**
 * The worked example of docs/metrics.md. Measure phase starts at 1000 ms.
 *   A ok: sent 1000, chunks 1050 1100 1150 1200 1250, end 1250, 5 output tokens, prompt 10
 *   B ok: scheduled 1100, sent 1120 (20 ms late), one chunk 1220, end 1230, 1 token, prompt 20
 *   C ok: sent 1200, chunks 1300 1400 1700, end 1700, 6 tokens (2 per chunk), prompt 30
 *   D error http_5xx: sent 1300, end 2500, no output
 * plus a warmup and a cooldown request that must not count.
 */
function example() {
  return [
    rec({ phase: 'warmup', sent_ms: 0, chunks: [800, 850], end_ms: 900, output_tokens: 100, prompt_tokens: 999 }),
    rec({ sent_ms: 1000, chunks: [1050, 1100, 1150, 1200, 1250], prompt_tokens: 10, requested_output_tokens: 5 }),
    rec({ scheduled_ms: 1100, sent_ms: 1120, chunks: [1220], end_ms: 1230, prompt_tokens: 20, requested_output_tokens: 5 }),
    rec({ sent_ms: 1200, chunks: [1300, 1400, 1700], output_tokens: 6, prompt_tokens: 30, requested_output_tokens: 6 }),
    rec({ sent_ms: 1300, end_ms: 2500, status: 'error', error_class: 'http_5xx', http_status: 503, prompt_tokens: 40 }),
    rec({ phase: 'cooldown', sent_ms: 2400, chunks: [2600, 9000], prompt_tokens: 5 }),
  ];
}

describe('computeMetrics on the worked example', () => {
  const m = computeMetrics(example());

  it('measures the measure phase only, failed time included', () => {
    // window = first measure send 1000 → last measure end 2500 (D, failed) = 1.5 s
    expect(m.start_ms).toBe(1000);
    expect(m.end_ms).toBe(2500);
    expect(m.duration_s).toBe(1.5);
    expect(m.requests).toMatchObject({ total: 4, ok: 3, failed: 1, late: 1 });
    expect(m.requests.by_status).toEqual({ ok: 3, error: 1, timeout: 0, cancelled: 0 });
    expect(m.requests.by_error_class).toEqual({ http_5xx: 1 });
  });

  it('divides ok-request sums by the duration', () => {
    // 3 ok / 1.5 s = 2 req/s
    expect(m.throughput.request_per_s).toBe(2);
    // output = 5 + 1 + 6 = 12 tokens; 12 / 1.5 = 8 tok/s
    expect(m.tokens.output_total).toBe(12);
    expect(m.throughput.output_tokens_per_s).toBe(8);
    // input = 10 + 20 + 30 = 60 (D's 40 left out); (60 + 12) / 1.5 = 48 tok/s
    expect(m.tokens.input_total).toBe(60);
    expect(m.throughput.total_tokens_per_s).toBe(48);
    expect(m.tokens.output_requested_total).toBe(16);
    expect(m.tokens.token_sources).toEqual({ usage: 3 });
  });

  it('computes TTFT from send and from schedule', () => {
    // TTFT: A 1050 − 1000 = 50, B 1220 − 1120 = 100, C 1300 − 1200 = 100
    const t = m.latency.ttft_ms;
    expect(t.count).toBe(3);
    expect(t.mean).toBeCloseTo(250 / 3, 12);
    expect(t.min).toBe(50);
    expect(t.p50).toBe(100);
    // std = sqrt(((50 − 83.3̅)² + 2 · (100 − 83.3̅)²) / 3) = sqrt(5000 / 9)
    expect(t.std).toBeCloseTo(Math.sqrt(5000 / 9), 10);
    // from schedule: B 1220 − 1100 = 120; sorted [50, 100, 120]
    expect(m.latency.ttft_from_schedule_ms.max).toBe(120);
    expect(m.latency.ttft_from_schedule_ms.p50).toBe(100);
    // p90: h = 2 · 0.9 = 1.8 → 100 + 0.8 · (120 − 100) = 116
    expect(m.latency.ttft_from_schedule_ms.p90).toBeCloseTo(116, 12);
  });

  it('computes TPOT only for outputs of more than one token', () => {
    // A: TPOT = (250 − 50) / (5 − 1) = 50; C: (500 − 100) / (6 − 1) = 80; B (1 token) left out
    const t = m.latency.tpot_ms;
    expect(t.count).toBe(2);
    expect(t.mean).toBe(65);
    // std = sqrt(((50 − 65)² + (80 − 65)²) / 2) = 15
    expect(t.std).toBe(15);
    // h = 1 · 0.9 = 0.9 → 50 + 0.9 · 30 = 77
    expect(t.p90).toBeCloseTo(77, 12);
  });

  it('pools every ITL gap', () => {
    // A: 50 50 50 50; B: none; C: 100 300 → 6 gaps, Σ = 600, mean 100
    const i = m.latency.itl_ms;
    expect(i.count).toBe(6);
    expect(i.mean).toBe(100);
    // sorted [50 50 50 50 100 300]: p50 h = 2.5 → 50; p90 h = 4.5 → 100 + 0.5 · 200 = 200
    expect(i.p50).toBe(50);
    expect(i.p90).toBe(200);
    expect(i.max).toBe(300);
    // std = sqrt((4 · 50² + 0² + 200²) / 6) = sqrt(50000 / 6) ≈ 91.29
    expect(i.std).toBeCloseTo(Math.sqrt(50000 / 6), 10);
  });

  it('computes E2EL from send and from schedule', () => {
    // A 250, B 1230 − 1120 = 110, C 500 → mean 860 / 3
    expect(m.latency.e2el_ms.mean).toBeCloseTo(860 / 3, 12);
    expect(m.latency.e2el_ms.p50).toBe(250);
    // sorted [110, 250, 500], p90: h = 1.8 → 250 + 0.8 · 250 = 450
    expect(m.latency.e2el_ms.p90).toBeCloseTo(450, 12);
    // from schedule: B 1230 − 1100 = 130
    expect(m.latency.e2el_from_schedule_ms.min).toBe(130);
  });

  it('takes schedule lag over every measure attempt', () => {
    // lags: A 0, B 20, C 0, D 0 → mean 5
    expect(m.latency.schedule_lag_ms.count).toBe(4);
    expect(m.latency.schedule_lag_ms.mean).toBe(5);
    expect(m.latency.schedule_lag_ms.max).toBe(20);
    // std = sqrt((3 · 5² + 15²) / 4) = sqrt(75)
    expect(m.latency.schedule_lag_ms.std).toBeCloseTo(Math.sqrt(75), 12);
  });

  it('gives failure rates over all measure attempts', () => {
    // 1 error of 4
    expect(m.requests.error_rate).toBe(0.25);
    expect(m.requests.failure_rate).toBe(0.25);
    expect(m.requests.timeout_rate).toBe(0);
    expect(m.requests.cancel_rate).toBe(0);
  });

  it('finds peaks in 1-second buckets', () => {
    // bucket 0 = [1000, 2000): A 5 + B 1 + C 3 chunks × 2 = 12 tokens; bucket 1: none
    expect(m.throughput.peak_output_tokens_per_s).toBe(12);
    // in flight: A [1000,1250) B [1120,1230) C [1200,1700) D [1300,2500) → 3 at 1200
    expect(m.throughput.peak_concurrency).toBe(3);
  });

  it('has no goodput without SLOs', () => {
    expect(m.goodput).toBeNull();
  });
});

describe('the measured window', () => {
  it('ends at the last request that ended by itself, not at a cancellation after the grace', () => {
    // A --duration 2s run with a 30 s grace against a server that stops answering:
    // A ok [0, 1000], B ok [100, 2000], C timeout [300, 1800], D cancelled [1500, 32000] (held open until the grace ended).
    const records = [
      rec({ sent_ms: 0, chunks: [500, 1000] }),
      rec({ sent_ms: 100, chunks: [1000, 2000] }),
      rec({ sent_ms: 300, end_ms: 1800, status: 'timeout', error_class: 'timeout' }),
      rec({ sent_ms: 1500, end_ms: 32000, status: 'cancelled', error_class: 'cancelled' }),
    ];
    const m = computeMetrics(records);
    expect([m.start_ms, m.end_ms]).toEqual([0, 2000]);
    expect(m.duration_s).toBe(2);
    expect(m.throughput.request_per_s).toBe(1); // 2 ok / 2 s (it was 2 / 32 s)
    expect(m.throughput.output_tokens_per_s).toBe(2); // 4 tokens / 2 s
    // A cancelled request sent after the last answer still counts until its send: the server had it from then.
    const later = computeMetrics([...records, rec({ sent_ms: 2500, end_ms: 32000, status: 'cancelled', error_class: 'cancelled' })]);
    expect(later.end_ms).toBe(2500);
  });
});

describe('computeMetrics edge cases', () => {
  it('returns null statistics, not NaN, when no request is ok', () => {
    const m = computeMetrics([
      rec({ sent_ms: 0, end_ms: 500, status: 'timeout', error_class: 'timeout' }),
      rec({ sent_ms: 100, end_ms: 2000, status: 'cancelled', error_class: 'cancelled' }),
    ]);
    // window 0 → 500: the timeout ended at 500; the cancelled request counts until its send (100)
    expect(m.duration_s).toBe(0.5);
    expect(m.latency.ttft_ms.count).toBe(0);
    expect(m.latency.ttft_ms.mean).toBeNull();
    expect(m.latency.tpot_ms.p99).toBeNull();
    // 0 ok over 2 s is a real zero
    expect(m.throughput.request_per_s).toBe(0);
    expect(m.requests.timeout_rate).toBe(0.5);
    expect(m.requests.cancel_rate).toBe(0.5);
    expect(m.requests.failure_rate).toBe(1);
    expect(m.tokens.output_requested_total).toBeNull();
    expect(JSON.stringify(m)).not.toMatch(/NaN|Infinity/);
  });

  it('returns null rates and throughputs for no records at all', () => {
    const m = computeMetrics([rec({ phase: 'warmup', sent_ms: 0, chunks: [10, 20] })]);
    expect(m.duration_s).toBe(0);
    expect(m.start_ms).toBeNull();
    expect(m.requests.total).toBe(0);
    expect(m.requests.error_rate).toBeNull();
    expect(m.throughput.request_per_s).toBeNull();
    expect(m.throughput.peak_concurrency).toBe(0);
    expect(m.latency.schedule_lag_ms.mean).toBeNull();
  });

  it('returns null throughputs for a zero-length window, not Infinity', () => {
    const m = computeMetrics([rec({ sent_ms: 5, chunks: [5], end_ms: 5 })]);
    expect(m.duration_s).toBe(0);
    expect(m.throughput.request_per_s).toBeNull();
    expect(m.throughput.output_tokens_per_s).toBeNull();
    expect(m.latency.e2el_ms.mean).toBe(0);
    expect(JSON.stringify(m)).not.toMatch(/NaN|Infinity/);
  });

  it('leaves a request without a first token out of TTFT and TPOT', () => {
    // non-streaming: no chunks, 4 output tokens from usage
    const m = computeMetrics([rec({ sent_ms: 0, end_ms: 400, output_tokens: 4 })]);
    expect(m.latency.ttft_ms.count).toBe(0);
    expect(m.latency.tpot_ms.count).toBe(0);
    expect(m.latency.e2el_ms.mean).toBe(400);
    // no chunks: the 4 tokens land at end_ms, in the only bucket
    expect(m.throughput.peak_output_tokens_per_s).toBe(4);
  });

  it('counts input tokens from the client when usage lacks them', () => {
    const m = computeMetrics([
      rec({ sent_ms: 0, chunks: [10], prompt_tokens: null, client_prompt_tokens: 7, token_source: 'tokenizer' }),
      rec({ sent_ms: 0, chunks: [20], prompt_tokens: null, client_prompt_tokens: null, token_source: 'chunks' }),
      rec({ sent_ms: 0, chunks: [30], prompt_tokens: 3 }),
      // the server's count wins over the client's estimate when both are there (3, not 5)
      rec({ sent_ms: 0, chunks: [40], prompt_tokens: 3, client_prompt_tokens: 5 }),
    ]);
    // 7 + 0 (unknown) + 3 + 3 = 13
    expect(m.tokens.input_total).toBe(13);
    expect(m.tokens.input_unknown).toBe(1);
    expect(m.tokens.token_sources).toEqual({ tokenizer: 1, chunks: 1, usage: 2 });
    // requested_output_tokens missing on every record → unknown
    expect(m.tokens.output_requested_total).toBeNull();
  });

  it('counts a request late only beyond the threshold', () => {
    const records = [
      rec({ scheduled_ms: 0, sent_ms: 10, chunks: [20] }), // lag 10: not > 10
      rec({ scheduled_ms: 0, sent_ms: 10.5, chunks: [20] }), // lag 10.5: late
      rec({ scheduled_ms: 0, sent_ms: 50, end_ms: 60, status: 'error', error_class: 'connect' }), // failed, late
    ];
    expect(computeMetrics(records).requests.late).toBe(2);
    expect(computeMetrics(records, { lateThresholdMs: 20 }).requests.late).toBe(1);
    expect(computeMetrics(records, { lateThresholdMs: 20 }).requests.late_threshold_ms).toBe(20);
  });
});

describe('computeMetricsByTask', () => {
  it('splits by task over the run window so throughputs add up', () => {
    const records = [
      rec({ task: 'chat', sent_ms: 0, chunks: [100, 200], end_ms: 200 }),
      rec({ task: 'code', sent_ms: 500, chunks: [600, 700, 800], end_ms: 2000 }),
      rec({ task: null, sent_ms: 100, chunks: [150], end_ms: 150 }),
      rec({ task: 'chat', phase: 'warmup', sent_ms: 0, chunks: [5000], end_ms: 5000 }),
    ];
    const all = computeMetrics(records);
    const byTask = computeMetricsByTask(records);
    expect(Object.keys(byTask)).toEqual(['chat', 'code', 'default']);
    // every task uses the run window 0 → 2000 ms
    for (const m of Object.values(byTask)) expect(m.duration_s).toBe(2);
    // chat 2 tokens, code 3, default 1 → 1, 1.5, 0.5 tok/s; Σ = 3 = 6 / 2
    expect(byTask.chat!.throughput.output_tokens_per_s).toBe(1);
    expect(byTask.code!.throughput.output_tokens_per_s).toBe(1.5);
    expect(byTask.default!.throughput.output_tokens_per_s).toBe(0.5);
    expect(all.throughput.output_tokens_per_s).toBe(3);
    expect(byTask.chat!.requests.total).toBe(1);
  });
});

describe('computeMetricsByStage', () => {
  it('measures each stage over its own window', () => {
    const records = [
      rec({ stage: 0, sent_ms: 0, chunks: [100, 200], end_ms: 1000 }),
      rec({ stage: 1, sent_ms: 5000, chunks: [5100, 5200, 5300], end_ms: 5500 }),
      rec({ stage: 1, sent_ms: 5200, chunks: [5300], end_ms: 6000 }),
    ];
    const byStage = computeMetricsByStage(records);
    expect(Object.keys(byStage)).toEqual(['0', '1']);
    // stage 0: 2 tokens / 1 s; stage 1: 4 tokens / (6000 − 5000) ms = 4 tok/s
    expect(byStage[0]!.throughput.output_tokens_per_s).toBe(2);
    expect(byStage[1]!.duration_s).toBe(1);
    expect(byStage[1]!.throughput.output_tokens_per_s).toBe(4);
  });
});
