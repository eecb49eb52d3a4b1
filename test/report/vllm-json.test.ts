import { describe, expect, it } from 'vitest';
import { computeMetrics } from '../../src/metrics/compute.js';
import { toVllmJson, vllmDate, type VllmJsonContext } from '../../src/report/vllm-json.js';
import { rec } from '../metrics/make-record.js';

// The worked example of docs/metrics.md (see test/metrics/compute.test.ts), window 1.5 s.
const records = [
  rec({ sent_ms: 1000, chunks: [1050, 1100, 1150, 1200, 1250], prompt_tokens: 10 }),
  rec({ scheduled_ms: 1100, sent_ms: 1120, chunks: [1220], end_ms: 1230, prompt_tokens: 20 }),
  rec({ sent_ms: 1200, chunks: [1300, 1400, 1700], output_tokens: 6, prompt_tokens: 30 }),
  rec({ sent_ms: 1300, end_ms: 2500, status: 'error', error_class: 'http_5xx' }),
];

const ctx: VllmJsonContext = {
  date: '20261129-113000',
  backend: 'openai-chat',
  model_id: 'meta-llama/Llama-3.1-8B-Instruct',
  tokenizer_id: 'meta-llama/Llama-3.1-8B-Instruct',
  num_prompts: 4,
  request_rate: 'inf',
  burstiness: 1,
  max_concurrency: null,
};

/** Keys `vllm bench serve --save-result` writes with `--percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 99`. */
const VLLM_KEYS = [
  'date',
  'endpoint_type',
  'backend',
  'label',
  'model_id',
  'tokenizer_id',
  'num_prompts',
  'request_rate',
  'burstiness',
  'max_concurrency',
  'duration',
  'completed',
  'failed',
  'total_input_tokens',
  'total_output_tokens',
  'request_throughput',
  'request_goodput',
  'output_throughput',
  'total_token_throughput',
  'max_output_tokens_per_s',
  'max_concurrent_requests',
  'rtfx',
  ...['ttft', 'tpot', 'itl', 'e2el'].flatMap((m) => [`mean_${m}_ms`, `median_${m}_ms`, `std_${m}_ms`, `p99_${m}_ms`]),
];

describe('toVllmJson', () => {
  it('writes exactly vLLM’s keys, in vLLM’s order', () => {
    const j = toVllmJson(computeMetrics(records), { ...ctx, metric_percentiles: [99] });
    expect(Object.keys(j)).toEqual(VLLM_KEYS);
  });

  it('tokenizer_id names the tokenizer that counted the prompts, null when none did (not the model id)', () => {
    expect(toVllmJson(computeMetrics(records), { ...ctx, tokenizer_id: null }).tokenizer_id).toBeNull();
    expect(toVllmJson(computeMetrics(records), { ...ctx, tokenizer_id: 'llama3' }).tokenizer_id).toBe('llama3');
  });

  it('carries the figures under vLLM’s names', () => {
    const slos = [{ metric: 'ttft_ms' as const, threshold_ms: 100 }, { metric: 'tpot_ms' as const, threshold_ms: 60 }];
    const j = toVllmJson(computeMetrics(records, { slos }), ctx);
    expect(j).toMatchObject({
      endpoint_type: 'openai-chat',
      label: null,
      tokenizer_id: 'meta-llama/Llama-3.1-8B-Instruct',
      request_rate: 'inf',
      duration: 1.5,
      // vLLM's "completed" counts successful requests only
      completed: 3,
      failed: 1,
      total_input_tokens: 60,
      total_output_tokens: 12,
      request_throughput: 2, // 3 / 1.5
      output_throughput: 8, // 12 / 1.5
      total_token_throughput: 48, // (60 + 12) / 1.5
      max_output_tokens_per_s: 12,
      max_concurrent_requests: 3,
      mean_tpot_ms: 65, // (50 + 80) / 2
      median_tpot_ms: 65,
      mean_itl_ms: 100, // 600 / 6 gaps
      p90_itl_ms: 200,
      median_e2el_ms: 250,
      median_ttft_ms: 100,
    });
    // 2 good (A and B) / 1.5 s
    expect(j.request_goodput).toBeCloseTo(4 / 3, 12);
    // p99 of TTFT [50, 100, 100]: h = 1.98 → 100
    expect(j.p99_ttft_ms).toBe(100);
    expect(j).toHaveProperty(['p99.9_ttft_ms']);
    expect(j).toHaveProperty('p50_e2el_ms', 250);
  });

  it('names fractional percentiles as vLLM does', () => {
    const j = toVllmJson(computeMetrics(records), { ...ctx, percentile_metrics: ['ttft'], metric_percentiles: [50, 99.9] });
    expect(Object.keys(j).filter((k) => k.includes('ttft'))).toEqual([
      'mean_ttft_ms',
      'median_ttft_ms',
      'std_ttft_ms',
      'p50_ttft_ms',
      'p99.9_ttft_ms',
    ]);
    expect(j).not.toHaveProperty('mean_tpot_ms');
  });

  it('any asked percentile: p25_, p75_, p99.99_ keys (vLLM’s spelling), the values computeMetrics gave, under client queue time too', () => {
    const m = computeMetrics(records, { percentiles: [25, 75, 99.99] });
    const j = toVllmJson(m, { ...ctx, max_concurrency: 2, request_rate: 10, percentile_metrics: ['ttft', 'e2el'], metric_percentiles: [25, 75, 99.99] });
    expect(Object.keys(j).filter((k) => /^p\d/.test(k))).toEqual([
      'p25_ttft_ms', 'p75_ttft_ms', 'p99.99_ttft_ms',
      'p25_e2el_ms', 'p75_e2el_ms', 'p99.99_e2el_ms',
      'p25_client_queue_time_ms', 'p75_client_queue_time_ms', 'p99.99_client_queue_time_ms',
      'p25_e2el_including_client_queue_ms', 'p75_e2el_including_client_queue_ms', 'p99.99_e2el_including_client_queue_ms',
    ]);
    // TTFT [50, 100, 100]: p25 h = 0.5 → 75; p75 h = 1.5 → 100. E2EL [110, 250, 500]: p25 h = 0.5 → 180.
    expect(j.p25_ttft_ms).toBe(75);
    expect(j.p75_ttft_ms).toBe(100);
    expect(j.p25_e2el_ms).toBe(180);
    // E2EL p75 h = 1.5 → 250 + 0.5 · 250 = 375; p99.99 h = 1.9998 → 500 − 250 · 0.0002 = 499.95.
    expect(j.p75_e2el_ms).toBe(375);
    expect(j['p99.99_e2el_ms']).toBeCloseTo(499.95, 9);
    // A percentile the metrics were not asked to compute is not guessed.
    expect(() => toVllmJson(computeMetrics(records), { ...ctx, metric_percentiles: [25] })).toThrow(/p25 of ttft was not computed/);
  });

  it('writes 0, as vLLM does, for statistics of no values, and null goodput without SLOs', () => {
    const j = toVllmJson(computeMetrics([rec({ sent_ms: 0, end_ms: 100, status: 'timeout', error_class: 'timeout' })]), ctx);
    expect(j.completed).toBe(0);
    expect(j.mean_ttft_ms).toBe(0);
    expect(j.p99_tpot_ms).toBe(0);
    expect(j.request_goodput).toBeNull();
    expect(JSON.stringify(j)).not.toMatch(/NaN|Infinity/);
  });

  it('adds client queue time under --max-concurrency, and metadata after the setup keys', () => {
    const m = computeMetrics(records);
    const j = toVllmJson(m, { ...ctx, max_concurrency: 2, request_rate: 10, metadata: { tp: '1' } });
    const keys = Object.keys(j);
    expect(keys.indexOf('tp')).toBe(keys.indexOf('num_prompts') + 1);
    // schedule lags 0, 20, 0, 0 → mean 5
    expect(j.mean_client_queue_time_ms).toBe(5);
    // E2EL from schedule: 250, 130, 500 → median 250
    expect(j.median_e2el_including_client_queue_ms).toBe(250);
    const closed = toVllmJson(m, { ...ctx, max_concurrency: 2 });
    expect(closed).toHaveProperty('mean_client_queue_time_ms');
    expect(closed).not.toHaveProperty('mean_e2el_including_client_queue_ms');
  });

  it('formats the date as vLLM does', () => {
    expect(vllmDate(new Date(2026, 10, 29, 9, 5, 7))).toBe('20261129-090507');
  });
});
