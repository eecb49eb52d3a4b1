import { describe, expect, it } from 'vitest';
import { efficiencies, engineConfig, numGpuBlocks } from '../../src/sim/engine/config.js';
import { hardwareProfile, modelProfile } from '../../src/sim/engine/profiles.js';
import { kvBytesPerToken, weightBytes } from '../../src/sim/engine/models.js';
import { Roofline, weightBytesRead } from '../../src/sim/engine/roofline.js';

const h100 = hardwareProfile('h100');
const h200 = hardwareProfile('h200');
const llama8b = modelProfile('llama-3.1-8b');
const cfg = engineConfig();

describe('profiles against published figures', () => {
  it('Llama-3.1-8B: 16.06 GB of bf16 weights, 128 KiB of KV per token', () => {
    expect(weightBytes(llama8b)).toBeCloseTo(16.06e9, -7);
    // 2 (K,V) × 32 layers × 8 KV heads × 128 head dim × 2 bytes = 131,072 B
    expect(kvBytesPerToken(llama8b)).toBe(128 * 1024);
  });

  it('H100 vs H200: same compute, 3.35 vs 4.8 TB/s', () => {
    expect(h100.peak_flops).toBe(989e12);
    expect(h200.peak_flops).toBe(989e12);
    expect(h100.mem_bandwidth).toBe(3.35e12);
    expect(h200.mem_bandwidth).toBe(4.8e12);
  });

  it('KV blocks of 8B on one H100 ≈ 442k tokens (vLLM logs ≈ 445k: the old 80 GiB model was +2%)', () => {
    // (0.9 × 79.2 GiB − 16.06 GB − 2.00 GB activation peak − 0.54 GB non-torch) / (128 KiB × 16) ≈ 27,626,
    // activation peak = 2 × 8192 tokens × (2 × 14336 + 4 × 4096) × 2 B + 1024 sequences × 128256 × 4 B (H100's V1 defaults)
    const blocks = numGpuBlocks(h100, llama8b, engineConfig({}, h100));
    expect(blocks).toBeGreaterThan(27_000);
    expect(blocks).toBeLessThan(28_500);
    expect(blocks).toBe(Math.floor((0.9 * 79.2 * 2 ** 30 - 16.06e9 - (2 * 8192 * (2 * 14336 + 4 * 4096) * 2 + 1024 * 128256 * 4) - 0.5 * 2 ** 30) / (128 * 1024 * 16)));
  });
});

describe('roofline step time', () => {
  it('batch-1 decode step = weight bytes / bandwidth, within the efficiency factor', () => {
    const r = new Roofline(h100, llama8b, cfg);
    const c = r.cost({ tokens: 1, seqs: 1, attn_ctx: 128, kv_tokens: 128 });
    const ideal = (16.06e9 / 3.35e12) * 1000; // 4.79 ms: the bound no H100 can beat
    expect(c.memory_ms).toBeGreaterThan(c.compute_ms);
    const roofMs = c.total_ms - c.overhead_ms;
    expect(roofMs).toBeGreaterThanOrEqual(ideal);
    const eff = efficiencies(h100, cfg).memory; // 0.8, the H100 profile's
    expect(roofMs).toBeLessThanOrEqual((ideal / eff) * 1.01); // KV of 128 tokens adds < 1%
    expect(roofMs * eff).toBeCloseTo(ideal, 1);
    // a CUDA-graph decode step: 0.4 + 32 × 0.004 + 1 × 0.03 = 0.558 ms
    expect(c.overhead_ms).toBeCloseTo(0.558, 6);
    // the same step with a prefill chunk runs eagerly: 0.4 + 32 × 0.032 + 0.03 = 1.454 ms
    expect(r.cost({ tokens: 2, seqs: 1, attn_ctx: 3, kv_tokens: 2 }).overhead_ms).toBeCloseTo(1.454, 6);
    const h = new Roofline(h200, llama8b, cfg).cost({ tokens: 1, seqs: 1, attn_ctx: 1, kv_tokens: 1 });
    expect(h.total_ms).toBeGreaterThan((16.06e9 / 4.8e12) * 1000); // 3.35 ms
    expect(h.total_ms).toBeLessThan(c.total_ms);
  });

  it('batch 64 at 2,048-token contexts reads as many KV bytes as weight bytes', () => {
    const kv = 64 * 2048 * kvBytesPerToken(llama8b); // 17.2 GB
    expect(kv / weightBytes(llama8b)).toBeGreaterThan(0.95);
    expect(kv / weightBytes(llama8b)).toBeLessThan(1.1);
    const r = new Roofline(h100, llama8b, cfg);
    const b1 = r.cost({ tokens: 1, seqs: 1, attn_ctx: 1, kv_tokens: 1 });
    const b64 = r.cost({ tokens: 64, seqs: 64, attn_ctx: 64 * 2048, kv_tokens: 64 * 2048 });
    // paged-attention KV reads run at kv_read_factor (0.7) of the weight-read bandwidth: 1 + 1.07 / 0.7 ≈ 2.53
    const expected = 1 + kv / weightBytes(llama8b) / cfg.kv_read_factor;
    expect(b64.memory_ms / b1.memory_ms).toBeCloseTo(expected, 2);
    expect(expected).toBeGreaterThan(2.4);
    expect(expected).toBeLessThan(2.7);
  });

  it('large prefill is compute bound: 2 × params × tokens / (peak × efficiency)', () => {
    const r = new Roofline(h100, llama8b, cfg);
    const c = r.cost({ tokens: 8192, seqs: 1, attn_ctx: (8192 * 8193) / 2, kv_tokens: 8192 });
    expect(c.compute_ms).toBeGreaterThan(c.memory_ms);
    const linear = ((2 * 8.03e9 * 8192) / (989e12 * 0.5)) * 1000; // 266 ms at the H100 profile's 0.5
    expect(c.compute_ms).toBeGreaterThan(linear);
    expect(c.compute_ms).toBeLessThan(linear * 1.2); // attention adds < 20% at 8k
  });

  it('tensor parallelism divides the roofline and adds communication', () => {
    const m70 = modelProfile('llama-3.1-70b');
    // Weights only (no KV read): the KV part also changes its rate with the KV heads per GPU (test/sim/engine-physics.test.ts).
    const tp1 = new Roofline(h100, m70, engineConfig({ tensor_parallel: 1 })).cost({ tokens: 1, seqs: 1, attn_ctx: 1, kv_tokens: 0 });
    const tp4 = new Roofline(h100, m70, engineConfig({ tensor_parallel: 4 })).cost({ tokens: 1, seqs: 1, attn_ctx: 1, kv_tokens: 0 });
    expect(tp4.memory_ms).toBeCloseTo(tp1.memory_ms / 4, 6);
    expect(tp4.comm_ms).toBeGreaterThan(0);
    expect(tp1.comm_ms).toBe(0);
  });

  it('MoE reads only the experts a step touches', () => {
    const mix = modelProfile('mixtral-8x7b');
    // one token: shared 1.6 B + 2/8 of 45.1 B experts = 12.9 B params
    expect(weightBytesRead(mix, 1) / 2).toBeCloseTo(12.875e9, -8);
    // many tokens touch every expert: all 46.7 B
    expect(weightBytesRead(mix, 256) / 2).toBeCloseTo(46.7e9, -8);
  });
});
