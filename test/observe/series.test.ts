import { describe, expect, it } from 'vitest';
import { DCGM, LLAMACPP, SGLANG, TGI, VLLM, detectEngines } from '../../src/observe/engines.js';
import { parseExposition } from '../../src/observe/exposition.js';
import { histogramQuantile, summarizeSeries, windowsOf } from '../../src/observe/series.js';
import { snapshotOf, type Snapshot } from '../../src/observe/snapshot.js';

/** A vLLM scrape with the given cumulative values (names as vLLM documents them). */
function vllm(o: { running: number; waiting: number; kv: number; gen: number; hits: number; queries: number; ttft: [number, number, number] }): string {
  const [b01, b1, inf] = o.ttft;
  return `# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="m",engine="0"} ${o.running}
vllm:num_requests_waiting{model_name="m",engine="0"} ${o.waiting}
vllm:kv_cache_usage_perc{model_name="m",engine="0"} ${o.kv}
vllm:generation_tokens_total{model_name="m",engine="0"} ${o.gen}
vllm:prefix_cache_hits_total{model_name="m",engine="0"} ${o.hits}
vllm:prefix_cache_queries_total{model_name="m",engine="0"} ${o.queries}
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{model_name="m",engine="0",le="0.1"} ${b01}
vllm:time_to_first_token_seconds_bucket{model_name="m",engine="0",le="1.0"} ${b1}
vllm:time_to_first_token_seconds_bucket{model_name="m",engine="0",le="+Inf"} ${inf}
vllm:time_to_first_token_seconds_count{model_name="m",engine="0"} ${inf}
vllm:time_to_first_token_seconds_sum{model_name="m",engine="0"} ${inf * 0.2}
`;
}

const snap = (text: string, t: number, source = 0): Snapshot => snapshotOf(parseExposition(text), t, source);

describe('engine detection and normalization', () => {
  it('recognizes each engine by its documented names', () => {
    const names = (text: string) => new Set(parseExposition(text).samples.map((s) => s.name));
    expect(detectEngines(names('vllm:num_requests_running 1\n')).map((e) => e.id)).toEqual(['vllm']);
    expect(detectEngines(names('sglang:num_running_reqs{model_name="m"} 1\n')).map((e) => e.id)).toEqual(['sglang']);
    expect(detectEngines(names('tgi_queue_size 3\ntgi_batch_current_size 2\n')).map((e) => e.id)).toEqual(['tgi']);
    expect(detectEngines(names('llamacpp:requests_processing 1\n')).map((e) => e.id)).toEqual(['llamacpp']);
    expect(detectEngines(names('DCGM_FI_DEV_GPU_UTIL{gpu="0"} 50\n')).map((e) => e.id)).toEqual(['dcgm']);
    expect(detectEngines(names('http_requests_total 5\n'))).toEqual([]);
  });

  it('maps SGLang, TGI, llama.cpp and DCGM samples to the normalized series', () => {
    const sg = snap('sglang:num_running_reqs{model_name="m"} 7\nsglang:num_queue_reqs{model_name="m"} 2\nsglang:token_usage{model_name="m"} 0.28\nsglang:cache_hit_rate{model_name="m"} 0.5\n', 0);
    expect(sg.engines).toEqual([SGLANG.id]);
    expect(sg.values.running).toEqual({ kind: 'gauge', value: 7 });
    expect(sg.values.waiting).toEqual({ kind: 'gauge', value: 2 });
    expect(sg.values.kv_usage).toEqual({ kind: 'gauge', value: 0.28 });
    expect(sg.values.prefix_hit_rate).toEqual({ kind: 'gauge', value: 0.5 });

    const tgi = snap('tgi_queue_size 3\ntgi_batch_current_size 5\ntgi_request_generated_tokens_sum 1200\ntgi_request_generated_tokens_count 10\n', 0);
    expect(tgi.engines).toEqual([TGI.id]);
    expect(tgi.values.waiting).toEqual({ kind: 'gauge', value: 3 });
    expect(tgi.values.batch_size).toEqual({ kind: 'gauge', value: 5 });
    expect(tgi.values.generation_tokens_per_s).toEqual({ kind: 'counter', value: 1200 });
    expect(tgi.values.kv_usage).toBeUndefined();

    const ll = snap('llamacpp:requests_processing 2\nllamacpp:requests_deferred 1\nllamacpp:kv_cache_usage_ratio 0.4\nllamacpp:tokens_predicted_total 900\n', 0);
    expect(ll.engines).toEqual([LLAMACPP.id]);
    expect(ll.values.kv_usage).toEqual({ kind: 'gauge', value: 0.4 });
    expect(ll.values.generation_tokens_per_s).toEqual({ kind: 'counter', value: 900 });

    // DCGM: percent → ratio (mean over GPUs), MiB → bytes (summed over GPUs)
    const dc = snap('DCGM_FI_DEV_GPU_UTIL{gpu="0"} 50\nDCGM_FI_DEV_GPU_UTIL{gpu="1"} 70\nDCGM_FI_DEV_FB_USED{gpu="0"} 1024\nDCGM_FI_DEV_FB_USED{gpu="1"} 2048\n', 0);
    expect(dc.engines).toEqual([DCGM.id]);
    expect(dc.values.gpu_util).toEqual({ kind: 'gauge', value: 0.6 });
    expect(dc.values.gpu_mem_used_bytes).toEqual({ kind: 'gauge', value: 3072 * 1024 * 1024 });
    expect(VLLM.sources.running).toBeDefined();
  });
});

describe('windows: rates, ratios and histogram percentiles', () => {
  it('histogram_quantile as Prometheus computes it', () => {
    // 10 observations: 4 in (0, 0.1], 5 in (0.1, 1], 1 above 1
    const h = { le: [0.1, 1, Infinity], counts: [4, 9, 10], sum: 5, count: 10 };
    // p50: rank 5 → bucket (0.1, 1], (5 − 4) / 5 of the way: 0.1 + 0.9 × 0.2 = 0.28
    expect(histogramQuantile(0.5, h)).toBeCloseTo(0.28, 12);
    // p20: rank 2 → first bucket from 0: 0.1 × 2/4 = 0.05
    expect(histogramQuantile(0.2, h)).toBeCloseTo(0.05, 12);
    // p99: rank 9.9 → the +Inf bucket: the highest finite bound
    expect(histogramQuantile(0.99, h)).toBe(1);
    expect(histogramQuantile(0.5, { le: [1, Infinity], counts: [0, 0], sum: 0, count: 0 })).toBeNull();
  });

  it('a rank landing exactly on a cumulative count stays in that bucket (the first with count ≥ rank)', () => {
    // 4 in (0, 0.1], none in (0.1, 1], 6 above 1. p40: rank 4 = the first bucket's count → its upper
    // bound 0.1, as Prometheus's sort.Search(count >= rank) gives; not the empty bucket or +Inf's 1.
    const h = { le: [0.1, 1, Infinity], counts: [4, 4, 10], sum: 0, count: 10 };
    expect(histogramQuantile(0.4, h)).toBeCloseTo(0.1, 12);
  });

  it('counters become rates, hits/queries a ratio of deltas, histograms the window distribution', () => {
    const s = [
      snap(vllm({ running: 1, waiting: 0, kv: 0.1, gen: 100, hits: 0, queries: 0, ttft: [0, 0, 0] }), 0),
      snap(vllm({ running: 4, waiting: 2, kv: 0.5, gen: 300, hits: 50, queries: 200, ttft: [2, 4, 4] }), 2000),
      snap(vllm({ running: 2, waiting: 0, kv: 0.3, gen: 700, hits: 150, queries: 400, ttft: [2, 8, 10] }), 4000),
    ];
    const w = windowsOf(s);
    expect(w).toHaveLength(2);
    // (300 − 100) / 2 s = 100 tokens/s; then (700 − 300) / 2 s = 200 tokens/s
    expect(w[0]?.values.generation_tokens_per_s).toEqual({ kind: 'rate', delta: 200, value: 100 });
    expect(w[1]?.values.generation_tokens_per_s).toEqual({ kind: 'rate', delta: 400, value: 200 });
    // hit rate in window 2: (150 − 50) / (400 − 200) = 0.5
    expect(w[1]?.values.prefix_hit_rate).toMatchObject({ value: 0.5 });
    // window 2's TTFT: 6 new observations, 0 ≤ 0.1 s, 4 in (0.1, 1], 2 above
    const h = w[1]?.values.ttft_s;
    expect(h?.kind === 'histogram' && h.hist.counts).toEqual([0, 4, 6]);
    const sum = summarizeSeries(w);
    // (700 − 100) tokens in 4 s: 150 tokens/s, 600 in all
    expect(sum.generation_tokens_per_s).toEqual({ mean: 150, total: 600 });
    // gauges at the later scrape of each window: (4 + 2) / 2 = 3, peak 4
    expect(sum.running).toEqual({ mean: 3, max: 4 });
    // ΣΔhits / ΣΔqueries = 150 / 400
    expect(sum.prefix_hit_rate?.mean).toBeCloseTo(0.375, 12);
    // all 10 TTFT observations: 2 ≤ 0.1, 6 in (0.1, 1], 2 above; mean = Σ / n = 2.0 / 10
    expect(sum.ttft_s?.count).toBe(10);
    expect(sum.ttft_s?.mean).toBeCloseTo(0.2, 12);
    // p50: rank 5 → (0.1, 1]: 0.1 + 0.9 × (5 − 2) / 6 = 0.55
    expect(sum.ttft_s?.p50).toBeCloseTo(0.55, 12);
  });

  it('a counter that goes down is a reset: counted from zero, and reported as a restart', () => {
    const s = [
      snap(vllm({ running: 1, waiting: 0, kv: 0.1, gen: 1000, hits: 0, queries: 0, ttft: [5, 5, 5] }), 0),
      snap(vllm({ running: 1, waiting: 0, kv: 0.1, gen: 40, hits: 0, queries: 0, ttft: [1, 1, 1] }), 1000),
      snap(vllm({ running: 1, waiting: 0, kv: 0.1, gen: 100, hits: 0, queries: 0, ttft: [1, 2, 2] }), 2000),
    ];
    const w = windowsOf(s);
    expect(w[0]?.resets).toBeGreaterThan(0);
    expect(w[1]?.resets).toBe(0);
    // after the reset the window counts 40 from zero, then 60: 100 tokens in 2 s
    expect(summarizeSeries(w).generation_tokens_per_s).toEqual({ mean: 50, total: 100 });
    expect(summarizeSeries(w).ttft_s?.count).toBe(2);
  });

  it('replicas: counts and rates add across sources, ratios average', () => {
    const a = [snap(vllm({ running: 2, waiting: 0, kv: 0.2, gen: 0, hits: 0, queries: 0, ttft: [0, 0, 0] }), 0, 0), snap(vllm({ running: 2, waiting: 0, kv: 0.2, gen: 100, hits: 0, queries: 0, ttft: [0, 0, 0] }), 1000, 0)];
    const b = [snap(vllm({ running: 6, waiting: 0, kv: 0.6, gen: 0, hits: 0, queries: 0, ttft: [0, 0, 0] }), 0, 1), snap(vllm({ running: 6, waiting: 0, kv: 0.6, gen: 300, hits: 0, queries: 0, ttft: [0, 0, 0] }), 1000, 1)];
    const sum = summarizeSeries(windowsOf([...a, ...b]));
    expect(sum.running?.mean).toBe(8);
    expect(sum.kv_usage?.mean).toBeCloseTo(0.4, 12);
    expect(sum.generation_tokens_per_s?.mean).toBe(400);
  });

  it('summarizes only the windows that overlap the measured span', () => {
    const s = [0, 1000, 2000, 3000].map((t, i) => snap(vllm({ running: i, waiting: 0, kv: 0, gen: i * 10, hits: 0, queries: 0, ttft: [0, 0, 0] }), t));
    // windows (0,1], (1,2], (2,3]; span [1500, 1800] overlaps only (1,2]
    expect(summarizeSeries(windowsOf(s), 1500, 1800).running).toEqual({ mean: 2, max: 2 });
  });
});
