/**
 * Engine knobs (vLLM names in comments) and cost-model parameters with their defaults, and the
 * KV block count they imply. Every default and its source: docs/simulator.md §Parameters.
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
  /** --max-num-seqs: sequences in one step (default: v1BatchDefaults for the GPU). */
  max_num_seqs: number;
  /** --max-num-batched-tokens: token budget of one step, prefill chunks + decodes (default: v1BatchDefaults for the GPU). */
  max_num_batched_tokens: number;
  /** --max-model-len; 0 = the model's own. */
  max_model_len: number;
  /** --gpu-memory-utilization. */
  gpu_memory_utilization: number;
  /** --enable-chunked-prefill (on in vLLM V1). */
  enable_chunked_prefill: boolean;
  /**
   * vLLM V0's default scheduler (chunked prefill off): a step that can admit waiting prompts runs
   * only those prefills and the running sequences wait; off in V1, which mixes them in one step.
   */
  prefill_first: boolean;
  /**
   * --num-scheduler-steps (vLLM V0 multi-step scheduling): a pure decode batch runs this many
   * iterations per scheduler call and streams their tokens together at the end; 1 = off (V1).
   */
  num_scheduler_steps: number;
  /** --enable-prefix-caching (on in vLLM V1). */
  enable_prefix_caching: boolean;
  /** --tensor-parallel-size. */
  tensor_parallel: number;
  /** --num-gpu-blocks-override; 0 = from memory. */
  num_gpu_blocks: number;
  /** Memory kept back per GPU for activations (bytes); 0 = estimated as vLLM's profiling run finds it. */
  activation_reserve_bytes: number;
  /** Memory per GPU outside PyTorch's allocator at TP1 (CUDA context, cuBLAS workspace), bytes. */
  non_torch_bytes: number;
  /** Further non-torch memory per GPU under tensor parallelism (NCCL and custom all-reduce buffers), bytes; tp > 1 only. */
  non_torch_tp_bytes: number;
  /**
   * How the KV cache is sized from memory: 'vllm' = mem × gpu_memory_utilization − weights −
   * activation peak − non-torch; 'static' = mem × fraction − weights (SGLang's mem_fraction_static,
   * activations outside it); 'free' = fraction × (mem − weights − activation peak − non-torch)
   * (TensorRT-LLM's free_gpu_memory_fraction).
   */
  kv_memory_basis: KvMemoryBasis;
  /**
   * What happens when a running sequence's KV cannot grow: 'preempt-recompute' (vLLM: the newest
   * is dropped and re-prefilled later), 'preempt-swap' (its KV goes to host memory and comes back
   * over the host link), 'reserve-full' (TensorRT-LLM's GUARANTEED_NO_EVICT: a request is admitted
   * only with KV reserved for prompt + max output, so nothing is ever preempted).
   */
  admission: AdmissionPolicy;
  /** Host link bytes/s per GPU for preempt-swap (PCIe). */
  swap_bandwidth: number;
  /** Fraction of peak FLOP/s reached by matmuls and attention; 0 = the hardware profile's. */
  compute_efficiency: number;
  /** Fraction of peak memory bandwidth reached by weight reads; 0 = the hardware profile's. */
  memory_efficiency: number;
  /** Paged-attention KV reads at their best (long contexts, enough KV heads per GPU) run at this fraction of the weight-read bandwidth. */
  kv_read_factor: number;
  /**
   * Decode-attention kernel efficiency falls when a GPU holds few KV heads (fewer thread blocks
   * per sequence to stream the cache): × min(1, KV heads per GPU × head dim / attn_full_heads_dim)^attn_heads_exponent
   * (issue 27: 8-way TP, one KV head per GPU, steps up to 2.2× slower than one flat factor gives
   * at batch 32–256 and 2–4k contexts); exponent 0 = flat.
   */
  attn_heads_exponent: number;
  /** KV heads × head dim per GPU from which decode attention runs at kv_read_factor. */
  attn_full_heads_dim: number;
  /** ... and at short contexts (fixed cost per sequence and head): × ctx / (ctx + attn_ctx_half_tokens). */
  attn_ctx_half_tokens: number;
  /**
   * Share of the CPU work (step_overhead_ms + request_overhead_ms per sequence) that runs while
   * the GPU computes the previous step (asynchronous / overlap scheduling): 0 = all serial, 1 =
   * hidden up to the GPU time of the step.
   */
  cpu_overlap: number;
  /** Per layer per step for an FP8 model that quantizes activations at run time (dynamic scales), ms. */
  act_quant_layer_ms: number;
  /** Fixed cost of every step (scheduling, input preparation, sampler launch), ms. */
  step_overhead_ms: number;
  /** Per layer per step when the step is not replayed from a CUDA graph (prefill, big batches), ms. */
  layer_overhead_ms: number;
  /** Per layer per step for a decode step replayed from a CUDA graph, ms. */
  graph_layer_overhead_ms: number;
  /** Largest decode batch captured as a CUDA graph (vLLM's max capture size). */
  cuda_graph_max_batch: number;
  /** Per scheduled sequence per step: sampling, detokenization and output share, ms. */
  request_overhead_ms: number;
  /**
   * Per further iteration of a multi-step window (num_scheduler_steps > 1, vLLM V0): the CPU
   * work an iteration still does between GPU steps (the model runner's loop, the sampler's and
   * advance_step's launches), ms. The window's first iteration pays the full step overheads.
   */
  multi_step_overhead_ms: number;
  /** Latency of one all-reduce under tensor parallelism (ms). */
  allreduce_latency_ms: number;
  /** Per request on the TTFT path, not serialized: HTTP, queue hops between processes, ms. */
  frontend_latency_ms: number;
  /** Per request on the TTFT path, serialized in the API server (one process): parsing, scheduling, ms. */
  frontend_cpu_ms: number;
  /** Serialized tokenization time per 1,000 prompt tokens, ms. */
  frontend_cpu_ms_per_1k_tokens: number;
  /** Serialized API-server time per streamed output token (detokenization, SSE), ms. */
  frontend_cpu_ms_per_output_token: number;
}

export type KvMemoryBasis = 'vllm' | 'static' | 'free';
export type AdmissionPolicy = 'preempt-recompute' | 'preempt-swap' | 'reserve-full';
export const ADMISSION_POLICIES: readonly AdmissionPolicy[] = ['preempt-recompute', 'preempt-swap', 'reserve-full'];

export const DEFAULT_ENGINE_CONFIG: EngineConfig = {
  block_size: 16,
  max_num_seqs: 256,
  max_num_batched_tokens: 8192,
  max_model_len: 0,
  gpu_memory_utilization: 0.9,
  enable_chunked_prefill: true,
  prefill_first: false,
  num_scheduler_steps: 1,
  enable_prefix_caching: true,
  tensor_parallel: 1,
  num_gpu_blocks: 0,
  activation_reserve_bytes: 0,
  non_torch_bytes: 0.5 * 2 ** 30,
  non_torch_tp_bytes: 1.5 * 2 ** 30,
  kv_memory_basis: 'vllm',
  admission: 'preempt-recompute',
  swap_bandwidth: 25e9,
  compute_efficiency: 0,
  memory_efficiency: 0,
  kv_read_factor: 0.7,
  attn_heads_exponent: 0.5,
  attn_full_heads_dim: 512,
  attn_ctx_half_tokens: 0,
  cpu_overlap: 0,
  act_quant_layer_ms: 0.02,
  step_overhead_ms: 0.4,
  layer_overhead_ms: 0.032,
  graph_layer_overhead_ms: 0.004,
  cuda_graph_max_batch: 512,
  request_overhead_ms: 0.03,
  multi_step_overhead_ms: 0.5,
  allreduce_latency_ms: 0.02,
  frontend_latency_ms: 10,
  frontend_cpu_ms: 4,
  frontend_cpu_ms_per_1k_tokens: 1,
  frontend_cpu_ms_per_output_token: 0.1,
};

/** The cost-model parameters `sim calibrate` fits and a profile file may set. */
export const COST_PARAMS = [
  'compute_efficiency', 'memory_efficiency', 'kv_read_factor', 'attn_heads_exponent', 'attn_full_heads_dim', 'attn_ctx_half_tokens', 'cpu_overlap', 'act_quant_layer_ms', 'step_overhead_ms', 'layer_overhead_ms', 'graph_layer_overhead_ms',
  'request_overhead_ms', 'multi_step_overhead_ms', 'allreduce_latency_ms', 'frontend_latency_ms', 'frontend_cpu_ms', 'frontend_cpu_ms_per_1k_tokens',
  'frontend_cpu_ms_per_output_token',
] as const satisfies readonly (keyof EngineConfig)[];
export type CostParam = (typeof COST_PARAMS)[number];

/**
 * The engine configuration: the defaults, vLLM V1's batch defaults for `hw` when given
 * (v1BatchDefaults), then `partial` (flags, presets, profile files) on top.
 */
export function engineConfig(partial: Partial<EngineConfig> = {}, hw?: HardwareProfile): EngineConfig {
  return { ...DEFAULT_ENGINE_CONFIG, ...(hw ? v1BatchDefaults(hw) : {}), ...partial };
}

const GiB = 2 ** 30;

/**
 * vLLM V1's OpenAI-server defaults for the step budget and the batch cap, which depend on the
 * GPU (EngineArgs.get_batch_defaults): 8,192 tokens and 1,024 sequences on GPUs with at least
 * 70 GiB of memory other than A100 (H100, H200, MI300X); 2,048 tokens and 256 sequences on the
 * others (A100, L40S, L4: a larger budget lowered A100 throughput, vLLM PR #17885).
 */
export function v1BatchDefaults(hw: HardwareProfile): Pick<EngineConfig, 'max_num_batched_tokens' | 'max_num_seqs'> {
  const big = hw.mem_bytes >= 70 * GiB && !/a100/i.test(`${hw.id} ${hw.name}`);
  return big ? { max_num_batched_tokens: 8192, max_num_seqs: 1024 } : { max_num_batched_tokens: 2048, max_num_seqs: 256 };
}

/** The efficiencies in force: the config's when set (> 0), else the hardware profile's. */
export function efficiencies(hw: HardwareProfile, c: EngineConfig): { compute: number; memory: number } {
  return {
    compute: c.compute_efficiency > 0 ? c.compute_efficiency : hw.compute_efficiency,
    memory: c.memory_efficiency > 0 ? c.memory_efficiency : hw.memory_efficiency,
  };
}

/**
 * The profiled peak over the widest live tensors: the allocator's peak also holds the tensors
 * around them (the SiLU output, the residual copy, attention workspaces) and fragmentation. 2 puts
 * Llama-3.1-8B at 8,192 tokens and 1,024 sequences at the ≈ 1.9 GiB vLLM's start-up log reports
 * (issue 27: "vLLM profiles ~1.9 GiB for 8B").
 */
export const ACTIVATION_PEAK_FACTOR = 2;

/**
 * Activation memory of vLLM's profiling run (a forward pass of max_num_batched_tokens tokens),
 * per GPU: the widest live tensors are the MLP's (gate and up, 2 × intermediate) plus the
 * residual and attention buffers (≈ 4 × hidden), in bf16, times ACTIVATION_PEAK_FACTOR, plus the
 * sampler's fp32 logits for max_num_seqs sequences. It grows with max_num_batched_tokens.
 */
export function activationReserveBytes(m: ModelProfile, c: EngineConfig): number {
  if (c.activation_reserve_bytes > 0) return c.activation_reserve_bytes;
  const tokens = c.max_num_batched_tokens;
  const widest = (2 * m.intermediate) / c.tensor_parallel + 4 * m.hidden;
  return ACTIVATION_PEAK_FACTOR * tokens * widest * 2 + c.max_num_seqs * m.vocab * 4;
}

/** Memory outside PyTorch's allocator per GPU: the TP1 base, plus the collective buffers when tp > 1. */
export function nonTorchBytes(c: EngineConfig): number {
  return c.non_torch_bytes + (c.tensor_parallel > 1 ? c.non_torch_tp_bytes : 0);
}

/** KV cache bytes per GPU after the start-up profile, by the engine's rule (EngineConfig.kv_memory_basis). */
export function kvBytesPerGpu(hw: HardwareProfile, m: ModelProfile, c: EngineConfig): number {
  const weights = weightBytes(m) / c.tensor_parallel;
  const f = c.gpu_memory_utilization;
  if (c.kv_memory_basis === 'static') return hw.mem_bytes * f - weights;
  const rest = activationReserveBytes(m, c) + nonTorchBytes(c);
  if (c.kv_memory_basis === 'free') return f * (hw.mem_bytes - weights - rest);
  return hw.mem_bytes * f - weights - rest;
}

/**
 * KV blocks, as vLLM sizes its cache after the profiling run:
 *   per GPU: mem × gpu_memory_utilization − weights / tp − activation peak − non-torch memory,
 *   summed over tp GPUs, / (KV bytes per token × block size).
 * E.g. Llama-3.1-8B on one H100 (V1 defaults: 8192 tokens, 1024 sequences): 77.3 GB − 16.06 GB
 * − 1.26 GB − 0.54 GB ≈ 59.5 GB → ≈ 28,350 blocks ≈ 454k tokens (vLLM logs ≈ 450–470k tokens of KV cache for this pair).
 */
export function numGpuBlocks(hw: HardwareProfile, m: ModelProfile, c: EngineConfig): number {
  if (c.num_gpu_blocks > 0) return c.num_gpu_blocks;
  const perGpu = kvBytesPerGpu(hw, m, c);
  return Math.max(0, Math.floor((c.tensor_parallel * perGpu) / (kvBytesPerToken(m) * c.block_size)));
}

/** Rejects what vLLM refuses at start-up, in its words: one line naming the flag. */
export function checkEngineConfig(m: ModelProfile, c: EngineConfig): void {
  if (!ADMISSION_POLICIES.includes(c.admission)) {
    throw new UserError(`admission policy: invalid choice: ${String(c.admission)} (choose from ${ADMISSION_POLICIES.join(', ')})`);
  }
  if (!BLOCK_SIZES.includes(c.block_size)) {
    throw new UserError(`--block-size: invalid choice: ${c.block_size} (choose from ${BLOCK_SIZES.join(', ')})`);
  }
  if (!c.enable_chunked_prefill && c.max_num_batched_tokens < maxModelLen(m, c)) {
    // Without chunked prefill a longer prompt could never be scheduled; vLLM refuses to start.
    throw new UserError(
      `--max-num-batched-tokens (${c.max_num_batched_tokens}) is smaller than --max-model-len (${maxModelLen(m, c)}) with chunked prefill disabled; increase max_num_batched_tokens or decrease max_model_len`,
    );
  }
  if (m.heads % c.tensor_parallel !== 0) {
    throw new UserError(`--tensor-parallel-size: Total number of attention heads (${m.heads}) must be divisible by tensor parallel size (${c.tensor_parallel}).`);
  }
}

export function maxModelLen(m: ModelProfile, c: EngineConfig): number {
  return c.max_model_len > 0 ? c.max_model_len : m.max_model_len;
}
