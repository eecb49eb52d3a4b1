/**
 * Step time of one engine iteration (all times in ms):
 *
 *   compute  = matmul FLOPs / (matmul peak × compute_efficiency × tp) + attention FLOPs / (attention peak × …)
 *     matmul FLOPs    = 2 × active_params × T        (T = tokens in the step); fp8 rate only for W8A8
 *     attention FLOPs = 4 × layers × heads × head_dim × A   (A = Σ over new tokens of the context
 *                       each attends to); fp8 rate only when the attention math is fp8
 *   memory   = W / (bw × memory_efficiency × tp) + kv_bytes_per_token × (R + seqs × attn_ctx_half) / (bw × memory_efficiency × attn_eff × tp)
 *     W      = weight bytes read once per step (MoE: shared + experts touched, see below)
 *     R      = tokens of KV read or written (Σ context of each scheduled sequence + T new)
 *     attn_eff = kv_read_factor × min(1, (KV heads per GPU × head_dim / attn_full_heads_dim))^attn_heads_exponent
 *   comm     = tp > 1: layers × 2 all-reduces × (latency + 2(tp−1)/tp × T × hidden × 2 B / link)
 *   gpu      = max(compute, memory) + comm + layers × (graph ? graph_layer_overhead : layer_overhead)
 *              + layers × act_quant_layer (FP8 with dynamic activation scales)
 *     graph  = a pure decode step of ≤ cuda_graph_max_batch sequences (replayed from a CUDA graph)
 *   cpu      = step_overhead + seqs × request_overhead
 *   step     = gpu + (1 − cpu_overlap) × cpu + max(0, cpu_overlap × cpu − gpu)
 *
 * MoE: with E experts and k per token, a step of T tokens touches on average
 * E × (1 − (1 − k/E)^T) experts per layer, so W = (params − expert_params) × b
 * + expert_params × b × (1 − (1 − k/E)^T).
 */
import type { EngineConfig } from './config.js';
import { efficiencies } from './config.js';
import type { HardwareProfile } from './hardware.js';
import type { ModelProfile } from './models.js';
import { kvBytesPerToken, weightBytes } from './models.js';


/** What the scheduler put in one step. */
export interface StepShape {
  /** New tokens computed (prefill chunk tokens + one per decoding sequence). */
  tokens: number;
  /** Sequences scheduled. */
  seqs: number;
  /** Σ over new tokens of the context each attends to (itself included). */
  attn_ctx: number;
  /** Tokens of KV cache read or written. */
  kv_tokens: number;
}

export interface StepCost {
  compute_ms: number;
  memory_ms: number;
  comm_ms: number;
  overhead_ms: number;
  total_ms: number;
}

/** Weight bytes one step reads: all weights for dense models, touched experts for MoE (unquantized parameters in bf16). */
export function weightBytesRead(m: ModelProfile, tokens: number): number {
  const all = weightBytes(m);
  if (!m.experts || !m.experts_per_token || !m.expert_params) return all;
  const experts = m.expert_params * m.weight_bytes_per_param;
  const touched = 1 - Math.pow(1 - m.experts_per_token / m.experts, tokens);
  return all - experts + experts * touched;
}

/** Dense FLOP/s the model's matmuls run at: the fp8 rate only when weights and activations are both fp8 (W8A8) and the GPU has fp8 tensor cores. */
export function peakFlops(hw: HardwareProfile, m: ModelProfile): number {
  const w8a8 = m.weight_bytes_per_param === 1 && (m.activation_bytes ?? m.weight_bytes_per_param) === 1;
  return w8a8 && hw.fp8_flops ? hw.fp8_flops : hw.peak_flops;
}

/** FLOP/s of the attention math: bf16 unless the profile says the attention runs in fp8. */
export function attentionFlops(hw: HardwareProfile, m: ModelProfile): number {
  return (m.attention_bytes ?? 2) === 1 && hw.fp8_flops ? hw.fp8_flops : hw.peak_flops;
}

/** Decode-attention bandwidth as a fraction of the weight-read bandwidth, for this model and TP (EngineConfig.attn_full_heads_dim). */
export function attentionReadFactor(m: ModelProfile, c: EngineConfig): number {
  const perGpu = (Math.max(1, m.kv_heads / c.tensor_parallel) * m.head_dim) / c.attn_full_heads_dim;
  return c.kv_read_factor * Math.pow(Math.min(1, perGpu), c.attn_heads_exponent);
}

export class Roofline {
  readonly kvBytesPerToken: number;
  private readonly flopsPerMs: number;
  private readonly attnFlopsPerMs: number;
  private readonly gpuFixedMs: number;
  private readonly bytesPerMs: number;
  private readonly kvBytesPerMs: number;
  private readonly eagerMs: number;
  private readonly graphMs: number;

  constructor(
    readonly hw: HardwareProfile,
    readonly model: ModelProfile,
    readonly cfg: EngineConfig,
  ) {
    const tp = cfg.tensor_parallel;
    const eff = efficiencies(hw, cfg);
    this.kvBytesPerToken = kvBytesPerToken(model);
    this.flopsPerMs = (peakFlops(hw, model) * eff.compute * tp) / 1000;
    this.attnFlopsPerMs = (attentionFlops(hw, model) * eff.compute * tp) / 1000;
    this.bytesPerMs = (hw.mem_bandwidth * eff.memory * tp) / 1000;
    this.kvBytesPerMs = this.bytesPerMs * attentionReadFactor(model, cfg);
    this.gpuFixedMs = model.dynamic_activation_quant && model.weight_bytes_per_param === 1 ? model.layers * cfg.act_quant_layer_ms : 0;
    this.eagerMs = model.layers * cfg.layer_overhead_ms;
    this.graphMs = model.layers * cfg.graph_layer_overhead_ms;
  }

  cost(s: StepShape): StepCost {
    const m = this.model;
    const compute_ms = (2 * m.active_params * s.tokens) / this.flopsPerMs + (4 * m.layers * m.heads * m.head_dim * s.attn_ctx) / this.attnFlopsPerMs;
    const kvRead = s.kv_tokens + s.seqs * this.cfg.attn_ctx_half_tokens;
    const memory_ms = weightBytesRead(m, s.tokens) / this.bytesPerMs + (this.kvBytesPerToken * kvRead) / this.kvBytesPerMs;
    const tp = this.cfg.tensor_parallel;
    const comm_ms =
      tp > 1
        ? m.layers * 2 * (this.cfg.allreduce_latency_ms + ((2 * (tp - 1)) / tp) * s.tokens * m.hidden * 2 / (this.hw.link_bandwidth / 1000))
        : 0;
    const graph = s.tokens === s.seqs && s.seqs <= this.cfg.cuda_graph_max_batch;
    const gpu = Math.max(compute_ms, memory_ms) + comm_ms + (graph ? this.graphMs : this.eagerMs) + this.gpuFixedMs;
    // CPU work of the step; with overlap scheduling its overlapped share runs during the GPU's work.
    const cpu = this.cfg.step_overhead_ms + s.seqs * this.cfg.request_overhead_ms;
    const o = this.cfg.cpu_overlap;
    const total_ms = gpu + (1 - o) * cpu + Math.max(0, o * cpu - gpu);
    const overhead_ms = total_ms - Math.max(compute_ms, memory_ms) - comm_ms;
    return { compute_ms, memory_ms, comm_ms, overhead_ms, total_ms };
  }

  stepMs(s: StepShape): number {
    return this.cost(s).total_ms;
  }
}
