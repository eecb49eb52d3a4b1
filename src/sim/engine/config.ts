/**
 * Engine knobs (vLLM names in comments) with their defaults, and the KV block count they imply.
 */
import { UserError } from '../../errors/user-error.js';
import type { HardwareProfile } from './hardware.js';
import type { ModelProfile } from './models.js';
import { kvBytesPerToken, weightBytes } from './models.js';

/** The KV block sizes vLLM accepts (its --block-size choices). */
export const BLOCK_SIZES: readonly number[] = [1, 8, 16, 32, 64, 128];

export interface EngineConfig {
  /** --block-size: tokens per KV block. */
  block_size: number;
  /** --max-num-seqs: sequences in one step. */
  max_num_seqs: number;
  /** --max-num-batched-tokens: token budget of one step (prefill chunks + decodes). */
  max_num_batched_tokens: number;
  /** --max-model-len; 0 = the model's own. */
  max_model_len: number;
  /** --gpu-memory-utilization. */
  gpu_memory_utilization: number;
  /** --enable-chunked-prefill (on in vLLM V1). */
  enable_chunked_prefill: boolean;
  /** --enable-prefix-caching (on in vLLM V1). */
  enable_prefix_caching: boolean;
  /** --tensor-parallel-size. */
  tensor_parallel: number;
  /** --num-gpu-blocks-override; 0 = from memory. */
  num_gpu_blocks: number;
  /** Memory kept back per GPU for activations and CUDA graphs (bytes). */
  activation_reserve_bytes: number;
  /** Fraction of peak FLOP/s reached by matmuls and attention. */
  compute_efficiency: number;
  /** Fraction of peak memory bandwidth reached by weight and KV reads. */
  memory_efficiency: number;
  /** Fixed costs added to the roofline (ms): per step, per layer per step, per scheduled request. */
  step_overhead_ms: number;
  layer_overhead_ms: number;
  request_overhead_ms: number;
  /** Latency of one all-reduce under tensor parallelism (ms). */
  allreduce_latency_ms: number;
}

export const DEFAULT_ENGINE_CONFIG: EngineConfig = {
  block_size: 16,
  max_num_seqs: 256,
  max_num_batched_tokens: 8192,
  max_model_len: 0,
  gpu_memory_utilization: 0.9,
  enable_chunked_prefill: true,
  enable_prefix_caching: true,
  tensor_parallel: 1,
  num_gpu_blocks: 0,
  activation_reserve_bytes: 2 ** 30,
  compute_efficiency: 0.45,
  memory_efficiency: 0.75,
  step_overhead_ms: 0.126,
  layer_overhead_ms: 0.032,
  request_overhead_ms: 0.004,
  allreduce_latency_ms: 0.008,
};

export function engineConfig(partial: Partial<EngineConfig> = {}): EngineConfig {
  return { ...DEFAULT_ENGINE_CONFIG, ...partial };
}

/**
 * KV blocks = ⌊(tp × mem × utilization − weights − tp × reserve) / (kv bytes per token × block size)⌋.
 * E.g. Llama-3.1-8B on one H100: (0.9 × 80 GiB − 16.06 GB − 1 GiB) / (128 KiB × 16) ≈ 28,300 blocks
 * ≈ 453k tokens (vLLM logs ≈ 450–470k for this pair).
 */
export function numGpuBlocks(hw: HardwareProfile, m: ModelProfile, c: EngineConfig): number {
  if (c.num_gpu_blocks > 0) return c.num_gpu_blocks;
  const tp = c.tensor_parallel;
  const free = tp * hw.mem_bytes * c.gpu_memory_utilization - weightBytes(m) - tp * c.activation_reserve_bytes;
  return Math.max(0, Math.floor(free / (kvBytesPerToken(m) * c.block_size)));
}

/** Rejects what vLLM refuses at start-up, in its words: one line naming the flag. */
export function checkEngineConfig(m: ModelProfile, c: EngineConfig): void {
  if (!BLOCK_SIZES.includes(c.block_size)) {
    throw new UserError(`--block-size: invalid choice: ${c.block_size} (choose from ${BLOCK_SIZES.join(', ')})`);
  }
  if (m.heads % c.tensor_parallel !== 0) {
    throw new UserError(`--tensor-parallel-size: Total number of attention heads (${m.heads}) must be divisible by tensor parallel size (${c.tensor_parallel}).`);
  }
}

export function maxModelLen(m: ModelProfile, c: EngineConfig): number {
  return c.max_model_len > 0 ? c.max_model_len : m.max_model_len;
}
