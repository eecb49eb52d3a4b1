/**
 * Issue 27's mechanisms, each against a hand computation or the behaviour it exists for:
 * decode attention cost by context and KV heads per GPU, the admission policies, KV capacity from
 * physical memory, per-layer precision, CPU/GPU overlap, and the batch growing with the
 * per-sequence cost near saturation (docs/simulator.md §Step time, §Paged KV cache, §Admission).
 */
import { describe, expect, it } from 'vitest';
import { engineConfig, hardwareProfile, modelProfile, numGpuBlocks, presetEngine, Roofline, runVirtual, type EngineConfig, type ModelProfile, type VirtualRequest } from '../../src/sim/index.js';

const GiB = 2 ** 30;
const h100 = hardwareProfile('h100');
const decode = (batch: number, ctx: number): { tokens: number; seqs: number; attn_ctx: number; kv_tokens: number } => ({ tokens: batch, seqs: batch, attn_ctx: batch * (ctx + 1), kv_tokens: batch * (ctx + 1) });

describe('decode attention cost', () => {
  const m70 = modelProfile('llama-3.1-70b');
  const at = (tp: number): Roofline => new Roofline(h100, m70, engineConfig({ tensor_parallel: tp }, h100));
  const slope = (r: Roofline, batch: number): number => (r.cost(decode(batch, 4096)).memory_ms - r.cost(decode(batch, 1024)).memory_ms) / 3072;

  it('rises with context at fixed batch by the KV bytes each GPU reads, at the hand-computed rate', () => {
    // TP2: 4 KV heads of 128 per GPU (≥ attn_full_heads_dim 512): full kv_read_factor.
    // 64 sequences × 3,072 more tokens × 320 KiB / (3.35 TB/s × 0.8 × 0.7 × 2 GPUs).
    const perToken = (64 * 327680) / (3.35e12 * 0.8 * 0.7 * 2) * 1000;
    expect(slope(at(2), 64)).toBeCloseTo(perToken, 9);
    expect(at(2).cost(decode(64, 4096)).memory_ms).toBeGreaterThan(at(2).cost(decode(64, 1024)).memory_ms);
  });

  it('more steeply per KV byte at fewer KV heads per GPU (TP8: one head per GPU runs at (128/512)^0.5 = half the rate)', () => {
    // Per GPU, TP8 reads a quarter of TP2's KV bytes; at one head per GPU each byte costs twice as much.
    const perByte2 = slope(at(2), 64) * 2;
    const perByte8 = slope(at(8), 64) * 8;
    expect(perByte8 / perByte2).toBeCloseTo(2, 9);
    // And the cost is linear in batch × context (the KV tokens read), not a fixed per-step term.
    expect(slope(at(8), 128) / slope(at(8), 64)).toBeCloseTo(2, 9);
  });

  it('a short-context fixed cost per sequence when attn_ctx_half_tokens is set: each sequence reads as if its context were that much longer', () => {
    const r0 = new Roofline(h100, m70, engineConfig({ tensor_parallel: 2 }, h100));
    const r1 = new Roofline(h100, m70, engineConfig({ tensor_parallel: 2, attn_ctx_half_tokens: 100 }, h100));
    expect(r1.cost(decode(64, 1000)).memory_ms).toBeCloseTo(r0.cost(decode(64, 1100)).memory_ms, 9);
  });
});

describe('per-layer precision', () => {
  const base = modelProfile('llama-3.1-8b');
  const w8a16: ModelProfile = { ...base, id: 'w8', weight_bytes_per_param: 1, activation_bytes: 2 };
  const w8a8: ModelProfile = { ...base, id: 'w8a8', weight_bytes_per_param: 1, activation_bytes: 1 };
  const prefill = { tokens: 8192, seqs: 1, attn_ctx: (8192 * 8193) / 2, kv_tokens: 8192 };
  const cfg = engineConfig({}, h100);

  it('matmuls run at the fp8 rate only for W8A8; attention stays at the bf16 rate unless the profile says fp8', () => {
    const matmul = (2 * 8.03e9 * 8192) / (989e12 * 0.5) * 1000;
    const matmulFp8 = (2 * 8.03e9 * 8192) / (1979e12 * 0.5) * 1000;
    const attnFp8 = (4 * 32 * 32 * 128 * prefill.attn_ctx) / (1979e12 * 0.5) * 1000;
    const attn = (4 * 32 * 32 * 128 * prefill.attn_ctx) / (989e12 * 0.5) * 1000;
    expect(new Roofline(h100, w8a16, cfg).cost(prefill).compute_ms).toBeCloseTo(matmul + attn, 6);
    expect(new Roofline(h100, w8a8, cfg).cost(prefill).compute_ms).toBeCloseTo(matmulFp8 + attn, 6);
    expect(new Roofline(h100, { ...w8a8, attention_bytes: 1 }, cfg).cost(prefill).compute_ms).toBeCloseTo(matmulFp8 + attnFp8, 6);
  });

  it('unquantized parameters are read in bf16, and dynamic activation scales add a kernel per layer', () => {
    const kept: ModelProfile = { ...w8a8, unquantized_params: 1.05e9 };
    const one = decode(1, 0);
    const bytes = (8.03e9 - 1.05e9) + 1.05e9 * 2;
    const r = new Roofline(h100, kept, cfg);
    expect(r.cost(one).memory_ms).toBeCloseTo(bytes / (3.35e12 * 0.8) * 1000 + 131072 / (3.35e12 * 0.8 * 0.7) * 1000, 6);
    const dyn = new Roofline(h100, { ...kept, dynamic_activation_quant: true }, cfg);
    expect(dyn.stepMs(one) - r.stepMs(one)).toBeCloseTo(32 * cfg.act_quant_layer_ms, 9);
  });
});

describe('CPU work overlapped with the GPU', () => {
  const m = modelProfile('llama-3.1-8b');
  it('serial adds the CPU time; full overlap hides it up to the GPU time, and only the excess shows', () => {
    const serial = new Roofline(h100, m, engineConfig({ request_overhead_ms: 0.01 }, h100));
    const overlapped = new Roofline(h100, m, engineConfig({ request_overhead_ms: 0.01, cpu_overlap: 1 }, h100));
    const s = decode(1000, 500);
    const cpu = 0.4 + 1000 * 0.01;
    expect(serial.stepMs(s) - overlapped.stepMs(s)).toBeCloseTo(cpu, 9);
    // A CPU cost larger than the GPU's step: with overlap the step takes the CPU time.
    const slow = new Roofline(h100, m, engineConfig({ request_overhead_ms: 0.5, cpu_overlap: 1 }, h100));
    expect(slow.stepMs(s)).toBeCloseTo(0.4 + 1000 * 0.5, 9);
  });
});

describe('admission policies', () => {
  // Long outputs on a small cache: sequences admitted on their prompt outgrow it.
  const requests: VirtualRequest[] = Array.from({ length: 40 }, (_, i) => ({ id: i, scheduled_ms: 0, prompt_tokens: 200, max_tokens: 600 }));
  const run = (admission: EngineConfig['admission']) => runVirtual({ hardware: 'h100', model: 'llama-3.1-8b', engine: { num_gpu_blocks: 400, admission }, requests });

  it('preempt-recompute preempts here; reserve-full never does, and every request still finishes', () => {
    const recompute = run('preempt-recompute');
    expect(recompute.stats.preemptions).toBeGreaterThan(0);
    const reserve = run('reserve-full');
    expect(reserve.stats.preemptions).toBe(0);
    expect(reserve.records.every((r) => r.status === 'ok' && r.output_tokens === 600)).toBe(true);
    // 400 blocks hold ⌊400 / ⌈800 / 16⌉⌋ = 8 whole sequences: never more than 8 run at once.
    expect(reserve.stats.mean_step_seqs).toBeLessThanOrEqual(8);
  });

  it('preempt-swap preempts as recompute does but brings the KV back instead of re-prefilling it', () => {
    const recompute = run('preempt-recompute');
    const swap = run('preempt-swap');
    expect(swap.stats.preemptions).toBeGreaterThan(0);
    expect(swap.records.every((r) => r.status === 'ok' && r.output_tokens === 600)).toBe(true);
    // Fewer tokens recomputed: the mean tokens per step (prefill chunks included) falls.
    expect(swap.stats.mean_step_tokens * swap.stats.steps).toBeLessThan(recompute.stats.mean_step_tokens * recompute.stats.steps);
  });

  it('an unknown policy is refused in one line', () => {
    expect(() => runVirtual({ hardware: 'h100', model: 'llama-3.1-8b', engine: { admission: 'evict-all' as EngineConfig['admission'] }, requests: [] })).toThrow(/admission policy: invalid choice: evict-all/);
  });
});

describe('KV capacity from physical memory (hand-computed)', () => {
  const blocks = (hw: string, model: string | ModelProfile, preset: string, user: Partial<EngineConfig>): number => {
    const h = hardwareProfile(hw);
    const m = modelProfile(model);
    return numGpuBlocks(h, m, engineConfig(presetEngine(preset, m, user), h));
  };
  const usable = 0.9 * 79.2 * GiB; // an "80GB" H100 reports 79.2 GiB

  it('Llama-3.1-8B, one H100, vLLM V1 defaults (8,192 tokens, 1,024 sequences)', () => {
    const activation = 2 * 8192 * (2 * 14336 + 4 * 4096) * 2 + 1024 * 128256 * 4; // 2.00 GB ≈ 1.86 GiB
    const kv = usable - 16.06e9 - activation - 0.5 * GiB;
    expect(blocks('h100', 'llama-3.1-8b', 'vllm-v1', {})).toBe(Math.floor(kv / (131072 * 16)));
    expect(Math.floor(kv / (131072 * 16))).toBe(27626);
  });

  it('Llama-3.1-70B, four H100s (TP4): activations per GPU shrink with TP, NCCL buffers add 1.5 GiB', () => {
    const activation = 2 * 8192 * ((2 * 28672) / 4 + 4 * 8192) * 2 + 1024 * 128256 * 4;
    const kvPerGpu = usable - (70.6e9 * 2) / 4 - activation - 2 * GiB;
    expect(blocks('h100', 'llama-3.1-70b', 'vllm-v1', { tensor_parallel: 4 })).toBe(Math.floor((4 * kvPerGpu) / (327680 * 16)));
    expect(Math.floor((4 * kvPerGpu) / (327680 * 16))).toBe(28244);
  });

  it('Qwen3-14B on one H100 under SGLang (mem_fraction_static 0.88: weights + KV) and Llama-3.1-8B under TensorRT-LLM (0.9 of the free memory)', () => {
    expect(blocks('h100', 'qwen3-14b', 'sglang', {})).toBe(Math.floor((0.88 * 79.2 * GiB - 14.77e9 * 2) / (163840 * 16)));
    expect(Math.floor((0.88 * 79.2 * GiB - 14.77e9 * 2) / (163840 * 16))).toBe(17278);
    const activation = 2 * 8192 * (2 * 14336 + 4 * 4096) * 2 + 2048 * 128256 * 4;
    const kv = 0.9 * (79.2 * GiB - 16.06e9 - activation - 0.5 * GiB);
    expect(blocks('h100', 'llama-3.1-8b', 'tensorrt-llm', {})).toBe(Math.floor(kv / (131072 * 16)));
  });

  it('the activation peak grows with max_num_batched_tokens', () => {
    expect(blocks('h100', 'llama-3.1-8b', 'vllm-v1', { max_num_batched_tokens: 32768 })).toBeLessThan(blocks('h100', 'llama-3.1-8b', 'vllm-v1', { max_num_batched_tokens: 8192 }));
  });
});

describe('near saturation the batch grows with the per-sequence cost', () => {
  // Open loop at 20 req/s of 512 in / 512 out on one H100 (8B): near what the engine sustains.
  const requests: VirtualRequest[] = Array.from({ length: 1200 }, (_, i) => ({ id: i, scheduled_ms: i * 50, prompt_tokens: 512, max_tokens: 512 }));
  /** Sequences in flight by Little's law: arrival rate × mean time in the system. */
  const inFlight = (request_overhead_ms: number): number => {
    const { records } = runVirtual({ hardware: 'h100', model: 'llama-3.1-8b', engine: { request_overhead_ms }, requests });
    return (20 * records.reduce((a, r) => a + r.end_ms - r.sent_ms, 0)) / records.length / 1000;
  };

  it("a larger per-sequence cost makes every step longer, so by Little's law more sequences are in flight at the same offered rate", () => {
    const b = [0.01, 0.03, 0.06].map(inFlight);
    expect(b[1]).toBeGreaterThan(b[0]! * 1.2);
    expect(b[2]).toBeGreaterThan(b[1]! * 1.2);
  });
});
