/**
 * Model profiles: the shapes that set FLOPs, weight bytes and KV bytes. Sources: the models'
 * Hugging Face config.json files and model cards (see docs/simulator.md).
 */
export interface ModelProfile {
  id: string;
  name: string;
  layers: number;
  hidden: number;
  heads: number;
  kv_heads: number;
  head_dim: number;
  /** All parameters (weights resident in memory). */
  params: number;
  /** MLP width (per expert for MoE: the sum over the experts a token uses). */
  intermediate: number;
  /** Vocabulary size (the sampler's logits). */
  vocab: number;
  /** Parameters used per token (= params for dense models). */
  active_params: number;
  /** MoE only: parameters in all routed experts together, expert count, experts per token. */
  expert_params?: number;
  experts?: number;
  experts_per_token?: number;
  /** Bytes per weight and per KV element (2 = bf16, 1 = fp8). */
  weight_bytes_per_param: number;
  kv_bytes_per_elem: number;
  /**
   * Per-layer precision of a quantized checkpoint (docs/simulator.md §Precision). Parameters a
   * quantized checkpoint keeps in bf16 (embeddings, lm_head, or whole layers it excludes); default 0.
   */
  unquantized_params?: number;
  /** Bytes per activation element entering the matmuls: 1 = fp8 (W8A8, fp8 tensor cores); default = weight_bytes_per_param. */
  activation_bytes?: number;
  /** Precision of the attention math (QKᵀ, AV): 2 = bf16 (default, also in most FP8 checkpoints), 1 = fp8 attention. */
  attention_bytes?: number;
  /** Activations are quantized at run time with dynamic scales (an extra kernel per linear layer); default false. */
  dynamic_activation_quant?: boolean;
  max_model_len: number;
}

export const MODELS: readonly ModelProfile[] = [
  // 8.03 B params → 16.06 GB bf16; 32 × 8 KV heads × 128 × 2 (K,V) × 2 B = 128 KiB KV per token.
  { id: 'llama-3.1-8b', name: 'Llama-3.1-8B', layers: 32, hidden: 4096, intermediate: 14336, vocab: 128256, heads: 32, kv_heads: 8, head_dim: 128, params: 8.03e9, active_params: 8.03e9, weight_bytes_per_param: 2, kv_bytes_per_elem: 2, max_model_len: 131072 },
  // 70.6 B params → 141 GB bf16 (needs TP ≥ 2 on 80 GB GPUs); 80 layers → 320 KiB KV per token.
  { id: 'llama-3.1-70b', name: 'Llama-3.1-70B', layers: 80, hidden: 8192, intermediate: 28672, vocab: 128256, heads: 64, kv_heads: 8, head_dim: 128, params: 70.6e9, active_params: 70.6e9, weight_bytes_per_param: 2, kv_bytes_per_elem: 2, max_model_len: 131072 },
  // 7.62 B params; 28 layers × 4 KV heads × 128 → 56 KiB KV per token.
  { id: 'qwen2.5-7b', name: 'Qwen2.5-7B', layers: 28, hidden: 3584, intermediate: 18944, vocab: 152064, heads: 28, kv_heads: 4, head_dim: 128, params: 7.62e9, active_params: 7.62e9, weight_bytes_per_param: 2, kv_bytes_per_elem: 2, max_model_len: 32768 },
  // Mixtral 8x7B: 46.7 B total, 12.9 B active (2 of 8 experts); experts hold ≈ 45.1 B.
  { id: 'mixtral-8x7b', name: 'Mixtral-8x7B', layers: 32, hidden: 4096, intermediate: 28672, vocab: 32000, heads: 32, kv_heads: 8, head_dim: 128, params: 46.7e9, active_params: 12.9e9, expert_params: 45.1e9, experts: 8, experts_per_token: 2, weight_bytes_per_param: 2, kv_bytes_per_elem: 2, max_model_len: 32768 },
  // Qwen3-30B-A3B: 30.5 B total, 3.3 B active (8 of 128 experts); experts hold ≈ 29.0 B.
  { id: 'qwen3-30b-a3b', name: 'Qwen3-30B-A3B', layers: 48, hidden: 2048, intermediate: 6144, vocab: 151936, heads: 32, kv_heads: 4, head_dim: 128, params: 30.5e9, active_params: 3.3e9, expert_params: 29.0e9, experts: 128, experts_per_token: 8, weight_bytes_per_param: 2, kv_bytes_per_elem: 2, max_model_len: 40960 },
  // Qwen3-8B: 8.19 B params (untied embeddings; 6.95 B without them); 36 layers × 8 KV heads × 128 → 144 KiB KV per token.
  { id: 'qwen3-8b', name: 'Qwen3-8B', layers: 36, hidden: 4096, intermediate: 12288, vocab: 151936, heads: 32, kv_heads: 8, head_dim: 128, params: 8.19e9, active_params: 8.19e9, weight_bytes_per_param: 2, kv_bytes_per_elem: 2, max_model_len: 40960 },
  // Qwen2.5-0.5B: 0.49 B params (tied embeddings); 24 layers × 2 KV heads × 64 → 12 KiB KV per token.
  { id: 'qwen2.5-0.5b', name: 'Qwen2.5-0.5B', layers: 24, hidden: 896, intermediate: 4864, vocab: 151936, heads: 14, kv_heads: 2, head_dim: 64, params: 0.494e9, active_params: 0.494e9, weight_bytes_per_param: 2, kv_bytes_per_elem: 2, max_model_len: 32768 },
  // Llama-3.1-405B: 126 layers, hidden 16384, 128 heads / 8 KV heads; 405.9 B params → 812 GB bf16, 406 GB fp8; 504 KiB KV per token in bf16.
  { id: 'llama-3.1-405b', name: 'Llama-3.1-405B', layers: 126, hidden: 16384, intermediate: 53248, vocab: 128256, heads: 128, kv_heads: 8, head_dim: 128, params: 405.9e9, active_params: 405.9e9, weight_bytes_per_param: 2, kv_bytes_per_elem: 2, max_model_len: 131072 },
  // Llama-2-70B: 80 layers, hidden 8192, 64 / 8 KV heads (GQA), 69.0 B params, 4,096-token context, 32,000-token vocabulary.
  { id: 'llama-2-70b', name: 'Llama-2-70B', layers: 80, hidden: 8192, intermediate: 28672, vocab: 32000, heads: 64, kv_heads: 8, head_dim: 128, params: 68.98e9, active_params: 68.98e9, weight_bytes_per_param: 2, kv_bytes_per_elem: 2, max_model_len: 4096 },
  // Qwen2.5-72B: 80 layers, hidden 8192, 64 / 8 KV heads, 72.7 B params, 32K context.
  { id: 'qwen2.5-72b', name: 'Qwen2.5-72B', layers: 80, hidden: 8192, intermediate: 29568, vocab: 152064, heads: 64, kv_heads: 8, head_dim: 128, params: 72.7e9, active_params: 72.7e9, weight_bytes_per_param: 2, kv_bytes_per_elem: 2, max_model_len: 32768 },
  // Mixtral-8x22B: 56 layers, hidden 6144, 48 / 8 KV heads, 140.6 B total, 39.1 B active (2 of 8 experts of 3 × 6144 × 16384 per layer: 135.3 B in experts).
  { id: 'mixtral-8x22b', name: 'Mixtral-8x22B', layers: 56, hidden: 6144, intermediate: 32768, vocab: 32768, heads: 48, kv_heads: 8, head_dim: 128, params: 140.6e9, active_params: 39.1e9, expert_params: 135.3e9, experts: 8, experts_per_token: 2, weight_bytes_per_param: 2, kv_bytes_per_elem: 2, max_model_len: 65536 },
  // Qwen3-14B: 40 layers, hidden 5120, 40 / 8 KV heads, 14.77 B params (untied embeddings); 160 KiB KV per token.
  { id: 'qwen3-14b', name: 'Qwen3-14B', layers: 40, hidden: 5120, intermediate: 17408, vocab: 151936, heads: 40, kv_heads: 8, head_dim: 128, params: 14.77e9, active_params: 14.77e9, weight_bytes_per_param: 2, kv_bytes_per_elem: 2, max_model_len: 40960 },
];

/** KV cache bytes per token: 2 (K and V) × layers × kv_heads × head_dim × bytes per element. */
export function kvBytesPerToken(m: ModelProfile): number {
  return 2 * m.layers * m.kv_heads * m.head_dim * m.kv_bytes_per_elem;
}

/** Resident weight bytes: the quantized parameters at their width, the unquantized ones in bf16. */
export function weightBytes(m: ModelProfile): number {
  const bf16 = Math.min(m.params, m.unquantized_params ?? 0);
  return (m.params - bf16) * m.weight_bytes_per_param + bf16 * 2;
}
