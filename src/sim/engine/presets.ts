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
 */
import { UserError } from '../../errors/user-error.js';
import type { EngineConfig } from './config.js';
import type { ModelProfile } from './models.js';

export const ENGINE_PRESETS = ['vllm-v1', 'vllm-v0'] as const;
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
  throw new UserError(`unknown engine preset '${preset}' (known: ${ENGINE_PRESETS.join(', ')})`);
}
