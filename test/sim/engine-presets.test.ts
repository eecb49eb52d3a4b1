/**
 * Engine generations (src/sim/engine/presets.ts): vLLM V0's prefill-first scheduler and its
 * multi-step windows, step by step, and the preset's defaults.
 */
import { describe, expect, it } from 'vitest';
import { engineConfig, v1BatchDefaults, type EngineConfig } from '../../src/sim/engine/config.js';
import { Engine, type Seq } from '../../src/sim/engine/engine.js';
import { presetEngine, V0_STEP_OVERHEAD_MS } from '../../src/sim/engine/presets.js';
import { hardwareProfile, modelProfile } from '../../src/sim/engine/profiles.js';
import { runVirtual } from '../../src/sim/index.js';
import { EngineBackend } from '../../src/sim/engine-backend.js';

const llama = modelProfile('llama-3.1-8b');
const engine = (c: Partial<EngineConfig>): Engine => new Engine(hardwareProfile('h100'), llama, engineConfig(c));
const add = (e: Engine, id: number, prompt: number, out: number): Seq => e.add({ id, prompt_tokens: prompt, output_tokens: out, block_hashes: [] });
const v0 = (c: Partial<EngineConfig> = {}): Partial<EngineConfig> => presetEngine('vllm-v0', llama, { max_model_len: 4096, ...c });

describe("vLLM V1's batch defaults depend on the GPU (EngineArgs.get_batch_defaults, OpenAI server)", () => {
  it('8192 tokens / 1024 sequences on ≥ 70 GiB GPUs other than A100; 2048 / 256 on the others', () => {
    const big = { max_num_batched_tokens: 8192, max_num_seqs: 1024 };
    const small = { max_num_batched_tokens: 2048, max_num_seqs: 256 };
    for (const id of ['h100', 'h200', 'mi300x']) expect(v1BatchDefaults(hardwareProfile(id)), id).toEqual(big);
    // A100 80GB has the memory but is excluded by name (a larger budget lowered its throughput); the others have < 70 GiB.
    for (const id of ['a100', 'a100-40gb', 'l40s', 'l4']) expect(v1BatchDefaults(hardwareProfile(id)), id).toEqual(small);
    // A profile file's GPU is judged the same way: 70 GiB exactly is big, just under is not.
    const file = (mem: number, name: string) => ({ ...hardwareProfile('h100'), id: 'x', name, mem_bytes: mem });
    expect(v1BatchDefaults(file(70 * 2 ** 30, 'X'))).toEqual(big);
    expect(v1BatchDefaults(file(70 * 2 ** 30 - 1, 'X'))).toEqual(small);
    expect(v1BatchDefaults(file(80 * 2 ** 30, 'NVIDIA A100-SXM4-80GB'))).toEqual(small);
  });

  it('apply under what the user or a preset set; without hardware the configuration keeps the fixed defaults', () => {
    const l4 = hardwareProfile('l4');
    expect(engineConfig({}, l4)).toMatchObject({ max_num_batched_tokens: 2048, max_num_seqs: 256 });
    expect(engineConfig({ max_num_batched_tokens: 4096 }, l4)).toMatchObject({ max_num_batched_tokens: 4096, max_num_seqs: 256 });
    expect(engineConfig({}, hardwareProfile('h100'))).toMatchObject({ max_num_batched_tokens: 8192, max_num_seqs: 1024 });
    expect(engineConfig()).toMatchObject({ max_num_batched_tokens: 8192, max_num_seqs: 256 });
    // V0 had one default for every GPU (256 sequences) and its own budget rule.
    expect(engineConfig(presetEngine('vllm-v0', llama, { max_model_len: 4096 }), hardwareProfile('h100'))).toMatchObject({ max_num_batched_tokens: 4096, max_num_seqs: 256 });
    // Both drivers build the engine with them.
    const backend = new EngineBackend({ kind: 'engine', hardware: 'l4', model: 'qwen2.5-0.5b' });
    expect(backend.engine.cfg).toMatchObject({ max_num_batched_tokens: 2048, max_num_seqs: 256 });
    backend.close();
  });

  it('in virtual time on an L4, a step prefills at most 2048 tokens: 8 prompts of 1024 tokens take 4 prefill steps', () => {
    const requests = Array.from({ length: 8 }, (_, i) => ({ id: i, scheduled_ms: 0, prompt_tokens: 1024, max_tokens: 1 }));
    const zero = { frontend_latency_ms: 0, frontend_cpu_ms: 0, frontend_cpu_ms_per_1k_tokens: 0 };
    const l4 = runVirtual({ hardware: 'l4', model: 'qwen2.5-0.5b', engine: zero, requests });
    expect(l4.stats.steps).toBe(4);
    expect(l4.stats.mean_step_tokens).toBe(2048);
    const h100 = runVirtual({ hardware: 'h100', model: 'qwen2.5-0.5b', engine: zero, requests });
    expect(h100.stats.steps).toBe(1);
  });
});

describe('vLLM V0 preset', () => {
  it('sets V0 defaults (chunked prefill off, budget max(max_model_len, 2048), prefix caching off) under what the user set', () => {
    expect(presetEngine('vllm-v0', llama, { max_model_len: 1000 })).toMatchObject({ enable_chunked_prefill: false, prefill_first: true, enable_prefix_caching: false, max_num_batched_tokens: 2048, step_overhead_ms: V0_STEP_OVERHEAD_MS });
    expect(presetEngine('vllm-v0', llama, { max_model_len: 4096 }).max_num_batched_tokens).toBe(4096);
    expect(presetEngine('vllm-v0', llama, { step_overhead_ms: 1 }).step_overhead_ms).toBe(1);
    expect(presetEngine('vllm-v1', llama, { max_num_seqs: 7 })).toEqual({ max_num_seqs: 7 });
    expect(() => presetEngine('vllm-v9', llama)).toThrow(/unknown engine preset 'vllm-v9'/);
  });

  it('refuses, as vLLM does, a step budget below max_model_len with chunked prefill off', () => {
    expect(() => engine({ enable_chunked_prefill: false, max_num_batched_tokens: 2048, max_model_len: 4096 })).toThrow(/max-num-batched-tokens \(2048\) is smaller than --max-model-len \(4096\)/);
  });

  it('prefill first: a step that admits a new prompt runs only prefills; the running sequence waits', () => {
    const e = engine(v0());
    const a = add(e, 0, 100, 10);
    let r = e.step();
    expect(r.admitted).toEqual([a]);
    r = e.step(); // a decodes alone
    expect(r.shape).toMatchObject({ tokens: 1, seqs: 1 });
    const b = add(e, 1, 200, 10);
    r = e.step();
    expect(r.shape).toMatchObject({ tokens: 200, seqs: 1 }); // b's prefill alone: a skipped this step
    expect(r.emitted).toEqual([b]);
    expect(a.output).toBe(2);
    r = e.step();
    expect(r.shape).toMatchObject({ tokens: 2, seqs: 2 }); // both decode
  });

  it('V1 (the default) mixes the same new prompt with the running decode in one step', () => {
    const e = engine({});
    add(e, 0, 100, 10);
    e.step();
    e.step();
    add(e, 1, 200, 10);
    expect(e.step().shape).toMatchObject({ tokens: 201, seqs: 2 });
  });

  it('multi-step: a pure decode batch runs its window and emits each token in order; full CPU costs once per window, multi_step_overhead_ms per further iteration', () => {
    const cfg = v0({ num_scheduler_steps: 4 });
    const e = engine(cfg);
    const a = add(e, 0, 50, 6);
    const b = add(e, 1, 60, 3);
    let r = e.step(); // prefill of both: one token each
    expect(r.emitted).toEqual([a, b]);
    const one = engine(cfg).roofline; // the cost of a single decode iteration of this batch
    r = e.step(); // window: iteration 1 (a, b), 2 (a, b: b is done), 3 (a), 4 (a)
    expect(r.emitted.map((s) => s.id)).toEqual([0, 1, 0, 1, 0, 0]);
    expect(r.finished).toEqual([b]);
    expect(a.output).toBe(5);
    const c = engineConfig(cfg);
    const cpu = (seqs: number): number => c.step_overhead_ms + seqs * c.request_overhead_ms;
    const it = (ctx: number[]): number => one.stepMs({ tokens: ctx.length, seqs: ctx.length, attn_ctx: ctx.reduce((x, y) => x + y, 0), kv_tokens: ctx.reduce((x, y) => x + y, 0) });
    // contexts: a holds 50 prompt + 1 output token after its prefill (51 attended), b 61
    const ms = c.multi_step_overhead_ms;
    expect(ms).toBe(0.5);
    const expected = it([51, 61]) + (it([52, 62]) - cpu(2) + ms) + (it([53]) - cpu(1) + ms) + (it([54]) - cpu(1) + ms);
    expect(r.duration_ms).toBeCloseTo(expected, 9);
    r = e.step(); // a's last token: a window of one useful iteration
    expect(r.emitted).toEqual([a]);
    expect(r.finished).toEqual([a]);
  });

  it('multi-step overhead: each window of 10 ends exactly 9 × multi_step_overhead_ms later per window than without it', () => {
    const run = (ms: number): number[] =>
      Array.from(runVirtual({ hardware: 'h100', model: 'llama-3.1-8b', engine: v0({ num_scheduler_steps: 10, multi_step_overhead_ms: ms }), requests: [{ id: 0, scheduled_ms: 0, prompt_tokens: 100, max_tokens: 31 }] }).records[0]!.chunk_ms);
    const base = run(0);
    const slow = run(2);
    expect(slow[0]).toBe(base[0]); // the prefill step has no window
    for (const k of [1, 11, 21]) {
      const windows = (k - 1) / 10 + 1;
      expect(slow[k]! - base[k]!).toBeCloseTo(windows * 9 * 2, 9);
    }
  });

  it('multi-step in virtual time: tokens of a window reach the client together, at its end', () => {
    const { records } = runVirtual({ hardware: 'h100', model: 'llama-3.1-8b', engine: v0({ num_scheduler_steps: 10 }), requests: [{ id: 0, scheduled_ms: 0, prompt_tokens: 100, max_tokens: 21 }] });
    const t = Array.from(records[0]!.chunk_ms);
    expect(t).toHaveLength(21);
    // token 1 from the prefill step, then two windows of 10
    expect(new Set(t.slice(1, 11)).size).toBe(1);
    expect(new Set(t.slice(11, 21)).size).toBe(1);
    expect(t[11]! > t[10]! && t[1]! > t[0]!).toBe(true);
  });
});
