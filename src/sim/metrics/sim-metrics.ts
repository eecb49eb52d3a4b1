/**
 * The simulator's /metrics under vLLM (V1) names and types, so anything that scrapes vLLM
 * scrapes the simulator. Request-level histograms are observed from server-side times (the
 * same times the ground truth records); gauges and engine counters come from the backend.
 *
 *   vllm:num_requests_running / _waiting            gauge
 *   vllm:kv_cache_usage_perc (+ legacy gpu_cache_usage_perc)  gauge, 0..1
 *   vllm:prefix_cache_queries_total / _hits_total   counter, tokens
 *   vllm:num_preemptions_total                      counter
 *   vllm:prompt_tokens_total / generation_tokens_total  counter
 *   vllm:request_success_total{finished_reason}     counter
 *   vllm:time_to_first_token_seconds, vllm:inter_token_latency_seconds,
 *   vllm:time_per_output_token_seconds, vllm:e2e_request_latency_seconds,
 *   vllm:request_queue_time_seconds, vllm:request_prefill_time_seconds,
 *   vllm:request_decode_time_seconds                histogram, seconds
 *   vllm:request_prompt_tokens, vllm:request_generation_tokens  histogram, tokens
 *   vllm:cache_config_info{block_size,num_gpu_blocks}  gauge = 1
 *   infermeter_sim:engine_info{engine,version,…settings}  gauge = 1 (both dialects; identity.ts)
 *   infermeter_sim_late_steps_total                 counter (both timings and dialects): engine steps,
 *     or fixed timing's token passes, served over 20 ms late — the simulator, not the model, was slow
 *
 * Both dialects add process_start_time_seconds (changes on a restart) and, when the backend
 * models a GPU, NVIDIA DCGM exporter names per GPU (label gpu="0"…): DCGM_FI_DEV_GPU_UTIL (%),
 * DCGM_FI_PROF_SM_ACTIVE and DCGM_FI_PROF_DRAM_ACTIVE (ratios), DCGM_FI_DEV_FB_USED and
 * DCGM_FI_DEV_FB_FREE, DCGM_FI_DEV_FB_TOTAL (MiB), labelled with the hardware preset's name. Activity is the step model's busy, compute-bound and
 * memory-bound time since the previous scrape, as DCGM averages over its sampling period.
 *
 * In the llama.cpp dialect the names are llama-server's (no labels): llamacpp:prompt_tokens_total,
 * prompt_seconds_total, tokens_predicted_total, tokens_predicted_seconds_total (counters),
 * prompt_tokens_seconds, predicted_tokens_seconds (average tokens/s), requests_processing,
 * requests_deferred, kv_cache_usage_ratio (gauges).
 */
import type { BackendStats, GpuActivity } from '../backend.js';
import { identityExposition, simGpuLabels, type SimIdentity } from '../identity.js';
import { Histogram, family, fmtLabels } from './prom.js';

// Bucket bounds as in vLLM's v1/metrics/loggers.py (seconds).
const TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0];
const ITL_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0];
/** vLLM's 1-2-5 series for token counts (it stops at max_model_len; we stop at 100k). */
const TOKEN_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000];
const REQUEST_BUCKETS = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0];

export class SimMetrics {
  readonly ttft = new Histogram('vllm:time_to_first_token_seconds', 'Histogram of time to first token in seconds.', TTFT_BUCKETS);
  readonly itl = new Histogram('vllm:inter_token_latency_seconds', 'Histogram of inter-token latency in seconds.', ITL_BUCKETS);
  readonly tpot = new Histogram('vllm:time_per_output_token_seconds', 'Histogram of time per output token in seconds.', ITL_BUCKETS);
  readonly e2e = new Histogram('vllm:e2e_request_latency_seconds', 'Histogram of e2e request latency in seconds.', REQUEST_BUCKETS);
  readonly queue = new Histogram('vllm:request_queue_time_seconds', 'Histogram of time spent in WAITING phase for request.', REQUEST_BUCKETS);
  readonly prefill = new Histogram('vllm:request_prefill_time_seconds', 'Histogram of time spent in PREFILL phase for request.', REQUEST_BUCKETS);
  readonly decode = new Histogram('vllm:request_decode_time_seconds', 'Histogram of time spent in DECODE phase for request.', REQUEST_BUCKETS);
  readonly promptLen = new Histogram('vllm:request_prompt_tokens', 'Number of prefill tokens processed.', TOKEN_BUCKETS);
  readonly genLen = new Histogram('vllm:request_generation_tokens', 'Number of generation tokens processed.', TOKEN_BUCKETS);
  private readonly all = [this.ttft, this.itl, this.tpot, this.e2e, this.queue, this.prefill, this.decode, this.promptLen, this.genLen];
  promptTokens = 0;
  generationTokens = 0;
  /** Σ prefill time (arrival → first token) and Σ decode time (first → last token), seconds. */
  promptSeconds = 0;
  predictedSeconds = 0;
  predictedTokens = 0;
  readonly success = new Map<string, number>([['stop', 0], ['length', 0], ['abort', 0]]);
  /** Backend counters at the last reset (restart), subtracted so counters restart at 0. */
  private base = { preemptions: 0, prefixQueries: 0, prefixHits: 0 };
  private readonly labels: string;
  /** Seconds since the epoch at start or the last restart (process_start_time_seconds). */
  private startedS = Date.now() / 1000;
  /** GPU activity at the previous scrape, for activity over the interval since. */
  private lastGpu: { atMs: number; busyMs: number; computeMs: number; memoryMs: number } | null = null;

  constructor(
    modelName: string,
    private readonly dialect: 'vllm' | 'llamacpp' = 'vllm',
    private readonly identity: SimIdentity | null = null,
  ) {
    this.labels = fmtLabels('', { model_name: modelName, engine: '0' });
  }

  onFirstToken(promptTokens: number, arrivalMs: number, atMs: number): void {
    this.promptTokens += promptTokens;
    this.promptSeconds += (atMs - arrivalMs) / 1000;
    this.ttft.observe((atMs - arrivalMs) / 1000);
  }

  onToken(gapMs: number | null): void {
    this.generationTokens++;
    if (gapMs !== null) this.itl.observe(gapMs / 1000);
  }

  /** A finished request: times in ms on one clock; admitMs NaN when never admitted. */
  onRequestEnd(reason: 'stop' | 'length' | 'abort', arrivalMs: number, admitMs: number, firstMs: number, endMs: number, tokens: number, promptTokens = 0): void {
    this.success.set(reason, (this.success.get(reason) ?? 0) + 1);
    if (reason === 'abort') return;
    this.promptLen.observe(promptTokens);
    this.genLen.observe(tokens);
    // prefill: first scheduled → first token; decode: first → last token (seconds)
    const start = Number.isNaN(admitMs) ? arrivalMs : admitMs;
    this.prefill.observe(Math.max(0, firstMs - start) / 1000);
    this.decode.observe(Math.max(0, endMs - firstMs) / 1000);
    if (tokens > 0) {
      this.predictedSeconds += (endMs - firstMs) / 1000;
      this.predictedTokens += tokens - 1;
    }
    this.e2e.observe((endMs - arrivalMs) / 1000);
    if (!Number.isNaN(admitMs)) this.queue.observe(Math.max(0, admitMs - arrivalMs) / 1000);
    if (tokens > 1) this.tpot.observe((endMs - firstMs) / (tokens - 1) / 1000);
  }

  /** Counters back to 0 (a restart). */
  reset(stats: BackendStats): void {
    for (const h of this.all) h.reset();
    this.promptTokens = 0;
    this.generationTokens = 0;
    this.promptSeconds = 0;
    this.predictedSeconds = 0;
    this.predictedTokens = 0;
    for (const k of this.success.keys()) this.success.set(k, 0);
    this.startedS = Date.now() / 1000;
    this.lastGpu = null;
    this.base = { preemptions: stats.preemptions, prefixQueries: stats.prefixQueries, prefixHits: stats.prefixHits };
  }

  render(s: BackendStats, nowMs: number = performance.now()): string {
    let out = family('process_start_time_seconds', 'gauge', 'Start time of the process since unix epoch in seconds.', [{ labels: '', value: this.startedS }]);
    if (this.identity) out += identityExposition(this.identity);
    if (s.gpu) out += this.renderGpu(s.gpu, nowMs);
    if (s.lateSteps !== undefined) {
      out += family('infermeter_sim_late_steps_total', 'counter', 'Engine steps (fixed timing: token passes) served over 20 ms after their simulated time: the simulator was short of CPU, not the model slow.', [{ labels: '', value: s.lateSteps }]);
    }
    return out + (this.dialect === 'llamacpp' ? this.renderLlama(s) : this.renderVllm(s));
  }

  private renderGpu(g: GpuActivity, nowMs: number): string {
    const last = this.lastGpu ?? { atMs: nowMs, busyMs: g.busyMs, computeMs: g.computeMs, memoryMs: g.memoryMs };
    const span = nowMs - last.atMs;
    // A share of the interval since the last scrape; 0 on the first scrape (no interval yet).
    const share = (now: number, then: number): number => (span > 0 ? Math.min(1, Math.max(0, (now - then) / span)) : 0);
    const util = share(g.busyMs, last.busyMs);
    const sm = share(g.computeMs, last.computeMs);
    const dram = share(g.memoryMs, last.memoryMs);
    this.lastGpu = { atMs: nowMs, busyMs: g.busyMs, computeMs: g.computeMs, memoryMs: g.memoryMs };
    const MiB = 1024 * 1024;
    const perGpu = (value: number): { labels: string; value: number }[] =>
      Array.from({ length: g.gpus }, (_, i) => ({ labels: this.identity ? simGpuLabels(this.identity, i) : fmtLabels('', { gpu: String(i), modelName: 'infermeter simulated GPU' }), value }));
    let out = '';
    out += family('DCGM_FI_DEV_GPU_UTIL', 'gauge', 'GPU utilization (in %).', perGpu(Math.round(util * 100)));
    out += family('DCGM_FI_PROF_SM_ACTIVE', 'gauge', 'The ratio of cycles an SM has at least 1 warp assigned.', perGpu(sm));
    out += family('DCGM_FI_PROF_DRAM_ACTIVE', 'gauge', 'The ratio of cycles the device memory interface is active sending or receiving data.', perGpu(dram));
    out += family('DCGM_FI_DEV_FB_USED', 'gauge', 'Framebuffer memory used (in MiB).', perGpu(Math.round(g.memUsedBytesPerGpu / MiB)));
    out += family('DCGM_FI_DEV_FB_FREE', 'gauge', 'Framebuffer memory free (in MiB).', perGpu(Math.max(0, Math.round((g.memTotalBytesPerGpu - g.memUsedBytesPerGpu) / MiB))));
    return out;
  }

  private renderVllm(s: BackendStats): string {
    const L = this.labels;
    const one = (value: number): { labels: string; value: number }[] => [{ labels: L, value }];
    let out = '';
    out += family('vllm:num_requests_running', 'gauge', 'Number of requests in model execution batches.', one(s.running));
    out += family('vllm:num_requests_waiting', 'gauge', 'Number of requests waiting to be processed.', one(s.waiting));
    out += family('vllm:kv_cache_usage_perc', 'gauge', 'KV-cache usage. 1 means 100 percent usage.', one(s.kvUsage));
    out += family('vllm:gpu_cache_usage_perc', 'gauge', 'GPU KV-cache usage. 1 means 100 percent usage (legacy name).', one(s.kvUsage));
    out += family('vllm:prefix_cache_queries_total', 'counter', 'Prefix cache queries, in terms of number of queried tokens.', one(s.prefixQueries - this.base.prefixQueries));
    out += family('vllm:prefix_cache_hits_total', 'counter', 'Prefix cache hits, in terms of number of cached tokens.', one(s.prefixHits - this.base.prefixHits));
    out += family('vllm:num_preemptions_total', 'counter', 'Cumulative number of preemption from the engine.', one(s.preemptions - this.base.preemptions));
    out += family('vllm:prompt_tokens_total', 'counter', 'Number of prefill tokens processed.', one(this.promptTokens));
    out += family('vllm:generation_tokens_total', 'counter', 'Number of generation tokens processed.', one(this.generationTokens));
    out += family(
      'vllm:request_success_total',
      'counter',
      'Count of successfully processed requests.',
      [...this.success].map(([reason, value]) => ({ labels: fmtLabels(L, { finished_reason: reason }), value })),
    );
    out += family('vllm:cache_config_info', 'gauge', 'Information of the LLMEngine CacheConfig', [
      { labels: fmtLabels(L, { block_size: String(s.blockSize), num_gpu_blocks: String(s.numBlocks) }), value: 1 },
    ]);
    for (const h of this.all) out += h.render(L);
    return out;
  }

  private renderLlama(s: BackendStats): string {
    const one = (value: number): { labels: string; value: number }[] => [{ labels: '', value }];
    const rate = (tokens: number, secs: number): number => (secs > 0 ? tokens / secs : 0);
    let out = '';
    out += family('llamacpp:prompt_tokens_total', 'counter', 'Number of prompt tokens processed.', one(this.promptTokens));
    out += family('llamacpp:prompt_seconds_total', 'counter', 'Prompt process time', one(this.promptSeconds));
    out += family('llamacpp:tokens_predicted_total', 'counter', 'Number of generation tokens processed.', one(this.generationTokens));
    out += family('llamacpp:tokens_predicted_seconds_total', 'counter', 'Predict process time', one(this.predictedSeconds));
    out += family('llamacpp:prompt_tokens_seconds', 'gauge', 'Average prompt throughput in tokens/s.', one(rate(this.promptTokens, this.promptSeconds)));
    out += family('llamacpp:predicted_tokens_seconds', 'gauge', 'Average generation throughput in tokens/s.', one(rate(this.predictedTokens, this.predictedSeconds)));
    out += family('llamacpp:kv_cache_usage_ratio', 'gauge', 'KV-cache usage. 1 means 100 percent usage.', one(s.kvUsage));
    out += family('llamacpp:requests_processing', 'gauge', 'Number of requests processing.', one(s.running));
    out += family('llamacpp:requests_deferred', 'gauge', 'Number of requests deferred.', one(s.waiting));
    return out;
  }
}
