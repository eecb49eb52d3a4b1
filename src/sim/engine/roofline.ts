/**
 * Step time of one engine iteration (all times in ms):
 *
 *   compute  = FLOPs / (peak × compute_efficiency × tp)        peak: fp8 rate for fp8 weights
 *     FLOPs  = 2 × active_params × T                      (matmuls, T = tokens in the step)
 *            + 4 × layers × heads × head_dim × A          (QKᵀ and AV; A = Σ over new tokens of
 *                                                          the context length each attends to)
 *   memory   = W / (bw × memory_efficiency × tp) + kv_bytes_per_token × R / (bw × memory_efficiency × kv_read_factor × tp)
 *     W      = weight bytes read once per step (MoE: shared + experts touched, see below)
 *     R      = tokens of KV read or written (Σ context of each scheduled sequence + T new)
 *   comm     = tp > 1: layers × 2 all-reduces × (latency + 2(tp−1)/tp × T × hidden × 2 B / link)
 *   overhead = step_overhead + layers × (graph ? graph_layer_overhead : layer_overhead) + seqs × request_overhead
 *     graph  = a pure decode step of ≤ cuda_graph_max_batch sequences (replayed from a CUDA graph)
 *   step     = max(compute, memory) + comm + overhead
 *
 * MoE: with E experts and k per token, a step of T tokens touches on average
 * E × (1 − (1 − k/E)^T) experts per layer, so W = (params − expert_params) × b
 * + expert_params × b × (1 − (1 − k/E)^T).
 */
import type { EngineConfig } from './config.js';
import { efficiencies } from './config.js';
import type { HardwareProfile } from './hardware.js';
import type { ModelProfile } from './models.js';
import { kvBytesPerToken } from './models.js';

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

/** Weight bytes one step reads: all weights for dense models, touched experts for MoE. */
export function weightBytesRead(m: ModelProfile, tokens: number): number {
  const b = m.weight_bytes_per_param;
  if (!m.experts || !m.experts_per_token || !m.expert_params) return m.params * b;
  const touched = 1 - Math.pow(1 - m.experts_per_token / m.experts, tokens);
  return (m.params - m.expert_params) * b + m.expert_params * b * touched;
}

/** Dense FLOP/s the model's matmuls run at on this hardware: fp8 weights use fp8 tensor cores when present. */
export function peakFlops(hw: HardwareProfile, m: ModelProfile): number {
  return m.weight_bytes_per_param === 1 && hw.fp8_flops ? hw.fp8_flops : hw.peak_flops;
}

export class Roofline {
  private readonly kvPerToken: number;
  private readonly flopsPerMs: number;
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
    this.kvPerToken = kvBytesPerToken(model);
    this.flopsPerMs = (peakFlops(hw, model) * eff.compute * tp) / 1000;
    this.bytesPerMs = (hw.mem_bandwidth * eff.memory * tp) / 1000;
    this.kvBytesPerMs = this.bytesPerMs * cfg.kv_read_factor;
    this.eagerMs = cfg.step_overhead_ms + model.layers * cfg.layer_overhead_ms;
    this.graphMs = cfg.step_overhead_ms + model.layers * cfg.graph_layer_overhead_ms;
  }

  cost(s: StepShape): StepCost {
    const m = this.model;
    const flops = 2 * m.active_params * s.tokens + 4 * m.layers * m.heads * m.head_dim * s.attn_ctx;
    const compute_ms = flops / this.flopsPerMs;
    const memory_ms = weightBytesRead(m, s.tokens) / this.bytesPerMs + (this.kvPerToken * s.kv_tokens) / this.kvBytesPerMs;
    const tp = this.cfg.tensor_parallel;
    const comm_ms =
      tp > 1
        ? m.layers * 2 * (this.cfg.allreduce_latency_ms + ((2 * (tp - 1)) / tp) * s.tokens * m.hidden * 2 / (this.hw.link_bandwidth / 1000))
        : 0;
    const graph = s.tokens === s.seqs && s.seqs <= this.cfg.cuda_graph_max_batch;
    const overhead_ms = (graph ? this.graphMs : this.eagerMs) + s.seqs * this.cfg.request_overhead_ms;
    return { compute_ms, memory_ms, comm_ms, overhead_ms, total_ms: Math.max(compute_ms, memory_ms) + comm_ms + overhead_ms };
  }

  stepMs(s: StepShape): number {
    return this.cost(s).total_ms;
  }
}
