/**
 * Engine generations: the scheduler defaults and per-step CPU cost that differ between serving
 * engine versions, as a set of EngineConfig fields. The default configuration is vLLM V1's;
 * a preset describes an older engine a measurement was taken on (docs/simulator.md §Engine presets).
 *
 *   vllm-v1  vLLM ≥ 0.8 with the V1 engine: chunked prefill and prefix caching on, running
 *            sequences and new prompts mixed in one step, CPU work overlapped with the GPU.
 *   vllm-v0  vLLM ≤ 0.7 (V0 engine) as its OpenAI server and LLM class started by default with
 *            max_model_len ≤ 32K: chunked prefill off, so a step that admits new prompts runs
 *            only prefills (prefill_first); max_num_batched_tokens = max(max_model_len, 2048);
 *            max_num_seqs 256 on every GPU (V1's depend on the GPU: config.ts v1BatchDefaults);
 *            prefix caching off; scheduling, input preparation and output processing run on the
 *            CPU between GPU steps (step_overhead_ms, fitted on the fitting rows of the table).
 *   tensorrt-llm  TensorRT-LLM's PyTorch-backend LLM API / trtllm-serve defaults (LlmArgs):
 *            max_batch_size 2048, max_num_tokens 8192 (a prompt above it is chunked here: TensorRT-LLM
 *            without enable_chunked_prefill refuses it, which no benchmark row does), capacity scheduler
 *            GUARANTEED_NO_EVICT (reserve-full), KV = free_gpu_memory_fraction 0.9 of the memory
 *            left after weights and activations, KV block reuse on, overlap scheduler on (the C++
 *            executor's per-request work runs during the GPU's step), CUDA graphs up to batch 128.
 *   sglang   SGLang's ServerArgs defaults on an 80 GB GPU: chunked_prefill_size 8192,
 *            mem_fraction_static 0.88 (weights + KV; activations outside it), radix cache on,
 *            overlap schedule on, cuda_graph_max_bs 160, retract (recompute) when KV runs out.
 */
import { UserError } from '../../errors/user-error.js';
import type { EngineConfig } from './config.js';
import type { ModelProfile } from './models.js';

export const ENGINE_PRESETS = ['vllm-v1', 'vllm-v0', 'tensorrt-llm', 'sglang'] as const;
export type EnginePreset = (typeof ENGINE_PRESETS)[number];

/** vLLM V0's synchronous per-step CPU time (ms): the fit of docs/simulator.md §Fidelity on its fitting rows. */
export const V0_STEP_OVERHEAD_MS = 3;

/**
 * The engine fields of `preset` for `model`, with `user` fields (flags, profile files) on top:
 * a preset sets defaults, never overrides what the user set.
 */
export function presetEngine(preset: string, model: ModelProfile, user: Partial<EngineConfig> = {}): Partial<EngineConfig> {
  if (preset === 'vllm-v1') return { ...user };
  if (preset === 'vllm-v0') {
    const maxLen = user.max_model_len !== undefined && user.max_model_len > 0 ? user.max_model_len : model.max_model_len;
    return {
      enable_chunked_prefill: false,
      prefill_first: true,
      enable_prefix_caching: false,
      max_num_batched_tokens: Math.max(maxLen, 2048),
      max_num_seqs: 256,
      step_overhead_ms: V0_STEP_OVERHEAD_MS,
      ...user,
    };
  }
  if (preset === 'tensorrt-llm') {
    return {
      max_num_seqs: 2048,
      max_num_batched_tokens: 8192,
      admission: 'reserve-full',
      kv_memory_basis: 'free',
      cpu_overlap: 1,
      cuda_graph_max_batch: 128,
      ...user,
    };
  }
  if (preset === 'sglang') {
    return {
      max_num_seqs: 4096,
      max_num_batched_tokens: 8192,
      gpu_memory_utilization: 0.88,
      kv_memory_basis: 'static',
      cpu_overlap: 1,
      cuda_graph_max_batch: 160,
      ...user,
    };
  }
  throw new UserError(`unknown engine preset '${preset}' (known: ${ENGINE_PRESETS.join(', ')})`);
}
