/**
 * Engine metric names → one normalized vocabulary. Each engine maps a normalized series to the
 * metric it documents (sources in docs/observe.md); the first source present in a scrape wins, so
 * a renamed metric can be listed after its successor. The simulator serves vLLM's names plus
 * DCGM-named GPU series, so it is read through the vLLM and DCGM maps.
 */

/** The normalized series every engine is read into. Units are in the id. */
export const SERIES = {
  running: { label: 'running requests', unit: '', kind: 'gauge' },
  waiting: { label: 'waiting requests', unit: '', kind: 'gauge' },
  batch_size: { label: 'batch size (sequences per step)', unit: '', kind: 'gauge' },
  kv_usage: { label: 'KV cache usage', unit: 'ratio', kind: 'gauge' },
  prefix_hit_rate: { label: 'prefix-cache hit rate', unit: 'ratio', kind: 'ratio' },
  preemptions_per_s: { label: 'preemptions/s', unit: '1/s', kind: 'rate' },
  prompt_tokens_per_s: { label: 'prompt tokens/s', unit: '1/s', kind: 'rate' },
  generation_tokens_per_s: { label: 'generation tokens/s', unit: '1/s', kind: 'rate' },
  requests_per_s: { label: 'finished requests/s', unit: '1/s', kind: 'rate' },
  queue_time_s: { label: 'queue time', unit: 's', kind: 'histogram' },
  prefill_time_s: { label: 'prefill time', unit: 's', kind: 'histogram' },
  decode_time_s: { label: 'decode time', unit: 's', kind: 'histogram' },
  ttft_s: { label: 'server TTFT', unit: 's', kind: 'histogram' },
  tpot_s: { label: 'server TPOT', unit: 's', kind: 'histogram' },
  e2el_s: { label: 'server end-to-end latency', unit: 's', kind: 'histogram' },
  gpu_util: { label: 'GPU utilization', unit: 'ratio', kind: 'gauge' },
  gpu_mem_used_bytes: { label: 'GPU memory used', unit: 'bytes', kind: 'gauge' },
  gpu_sm_active: { label: 'SM active', unit: 'ratio', kind: 'gauge' },
  gpu_dram_active: { label: 'memory bandwidth active', unit: 'ratio', kind: 'gauge' },
  gpu_power_w: { label: 'GPU power', unit: 'W', kind: 'gauge' },
} as const;
export type SeriesId = keyof typeof SERIES;
export const SERIES_IDS = Object.keys(SERIES) as SeriesId[];

/**
 * Where one normalized series is read from.
 * - gauge: the samples of `metric` (optionally filtered by labels), combined by `agg`, × scale.
 * - counter: a cumulative count (summed over label sets); becomes a rate per second.
 * - ratio: Δnum / Δden of two counters over a window (hit rate from hits and queries).
 * - gauge_ratio: an engine that exports the ratio itself as a gauge (mean over the window).
 * - histogram: a Prometheus histogram in seconds, label sets merged by bucket.
 * - histogram_sum: the _sum of a histogram read as a counter (tokens from a length histogram).
 */
export type Source =
  | { kind: 'gauge'; metric: string; agg: 'sum' | 'mean' | 'max'; scale?: number; where?: Record<string, string> }
  | { kind: 'counter'; metric: string; where?: Record<string, string> }
  | { kind: 'ratio'; num: string; den: string }
  | { kind: 'gauge_ratio'; metric: string }
  | { kind: 'histogram'; metric: string; where?: Record<string, string> }
  | { kind: 'histogram_sum'; metric: string };

export interface EngineMap {
  id: 'vllm' | 'sglang' | 'tgi' | 'llamacpp' | 'dcgm';
  name: string;
  /** A metric whose presence identifies the engine. */
  marker: string;
  sources: Partial<Record<SeriesId, Source[]>>;
}

const g = (metric: string, agg: 'sum' | 'mean' | 'max' = 'sum', scale?: number): Source => ({ kind: 'gauge', metric, agg, ...(scale !== undefined ? { scale } : {}) });
const c = (metric: string): Source => ({ kind: 'counter', metric });
const h = (metric: string, where?: Record<string, string>): Source => ({ kind: 'histogram', metric, ...(where ? { where } : {}) });

export const VLLM: EngineMap = {
  id: 'vllm',
  name: 'vLLM',
  marker: 'vllm:num_requests_running',
  sources: {
    running: [g('vllm:num_requests_running')],
    waiting: [g('vllm:num_requests_waiting')],
    // vLLM's running requests are the sequences in every step's batch.
    batch_size: [g('vllm:num_requests_running')],
    kv_usage: [g('vllm:kv_cache_usage_perc', 'mean'), g('vllm:gpu_cache_usage_perc', 'mean')],
    prefix_hit_rate: [
      { kind: 'ratio', num: 'vllm:prefix_cache_hits_total', den: 'vllm:prefix_cache_queries_total' },
      { kind: 'ratio', num: 'vllm:gpu_prefix_cache_hits_total', den: 'vllm:gpu_prefix_cache_queries_total' },
    ],
    preemptions_per_s: [c('vllm:num_preemptions_total')],
    prompt_tokens_per_s: [c('vllm:prompt_tokens_total')],
    generation_tokens_per_s: [c('vllm:generation_tokens_total')],
    requests_per_s: [c('vllm:request_success_total')],
    queue_time_s: [h('vllm:request_queue_time_seconds')],
    prefill_time_s: [h('vllm:request_prefill_time_seconds')],
    decode_time_s: [h('vllm:request_decode_time_seconds')],
    ttft_s: [h('vllm:time_to_first_token_seconds')],
    tpot_s: [h('vllm:request_time_per_output_token_seconds'), h('vllm:time_per_output_token_seconds')],
    e2el_s: [h('vllm:e2e_request_latency_seconds')],
  },
};

export const SGLANG: EngineMap = {
  id: 'sglang',
  name: 'SGLang',
  marker: 'sglang:num_running_reqs',
  sources: {
    running: [g('sglang:num_running_reqs')],
    waiting: [g('sglang:num_queue_reqs')],
    batch_size: [g('sglang:num_running_reqs')],
    kv_usage: [g('sglang:token_usage', 'mean')],
    prefix_hit_rate: [{ kind: 'gauge_ratio', metric: 'sglang:cache_hit_rate' }],
    prompt_tokens_per_s: [c('sglang:prompt_tokens_total')],
    generation_tokens_per_s: [c('sglang:generation_tokens_total')],
    requests_per_s: [c('sglang:num_requests_total')],
    queue_time_s: [h('sglang:queue_time_seconds')],
    ttft_s: [h('sglang:time_to_first_token_seconds')],
    tpot_s: [h('sglang:time_per_output_token_seconds')],
    e2el_s: [h('sglang:e2e_request_latency_seconds')],
  },
};

export const TGI: EngineMap = {
  id: 'tgi',
  name: 'Text Generation Inference',
  marker: 'tgi_queue_size',
  sources: {
    running: [g('tgi_batch_current_size')],
    waiting: [g('tgi_queue_size')],
    batch_size: [g('tgi_batch_current_size')],
    prompt_tokens_per_s: [{ kind: 'histogram_sum', metric: 'tgi_request_input_length' }],
    generation_tokens_per_s: [{ kind: 'histogram_sum', metric: 'tgi_request_generated_tokens' }],
    requests_per_s: [c('tgi_request_success')],
    queue_time_s: [h('tgi_request_queue_duration')],
    prefill_time_s: [h('tgi_batch_forward_duration', { method: 'prefill' })],
    decode_time_s: [h('tgi_request_inference_duration')],
    tpot_s: [h('tgi_request_mean_time_per_token_duration')],
    e2el_s: [h('tgi_request_duration')],
  },
};

export const LLAMACPP: EngineMap = {
  id: 'llamacpp',
  name: 'llama.cpp server',
  marker: 'llamacpp:requests_processing',
  sources: {
    running: [g('llamacpp:requests_processing')],
    waiting: [g('llamacpp:requests_deferred')],
    batch_size: [g('llamacpp:n_busy_slots_per_decode', 'mean'), g('llamacpp:requests_processing')],
    kv_usage: [g('llamacpp:kv_cache_usage_ratio', 'mean')],
    prompt_tokens_per_s: [c('llamacpp:prompt_tokens_total')],
    generation_tokens_per_s: [c('llamacpp:tokens_predicted_total')],
  },
};

/** NVIDIA DCGM exporter: percentages and MiB become ratios and bytes. Summed over GPUs where a total makes sense. */
export const DCGM: EngineMap = {
  id: 'dcgm',
  name: 'NVIDIA DCGM exporter',
  marker: 'DCGM_FI_DEV_GPU_UTIL',
  sources: {
    gpu_util: [g('DCGM_FI_DEV_GPU_UTIL', 'mean', 0.01)],
    gpu_mem_used_bytes: [g('DCGM_FI_DEV_FB_USED', 'sum', 1024 * 1024)],
    gpu_sm_active: [g('DCGM_FI_PROF_SM_ACTIVE', 'mean')],
    gpu_dram_active: [g('DCGM_FI_PROF_DRAM_ACTIVE', 'mean')],
    gpu_power_w: [g('DCGM_FI_DEV_POWER_USAGE', 'sum')],
  },
};

export const ENGINES: readonly EngineMap[] = [VLLM, SGLANG, TGI, LLAMACPP, DCGM];

/** The engines whose marker metric appears among `names` (a server may also export DCGM series). */
export function detectEngines(names: ReadonlySet<string>): EngineMap[] {
  return ENGINES.filter((e) => names.has(e.marker));
}
