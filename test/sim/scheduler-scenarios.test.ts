/**
 * Step-by-step scenarios pinning the vLLM V1 scheduler behaviours the engine states
 * (src/sim/engine/engine.ts): each step is driven by hand on a tiny KV cache, and the test says
 * which request holds which blocks after which step.
 */
import { describe, expect, it } from 'vitest';
import { engineConfig, type EngineConfig } from '../../src/sim/engine/config.js';
import { Engine, type Seq } from '../../src/sim/engine/engine.js';
import { hardwareProfile, modelProfile } from '../../src/sim/engine/profiles.js';

const BS = 16;
const engine = (c: Partial<EngineConfig>): Engine => new Engine(hardwareProfile('h100'), modelProfile('llama-3.1-8b'), engineConfig({ block_size: BS, ...c }));
const add = (e: Engine, id: number, prompt: number, out: number, hashes: number[] = []): Seq => e.add({ id, prompt_tokens: prompt, output_tokens: out, block_hashes: hashes });

describe('scheduler scenarios (vLLM V1 behaviours)', () => {
  it('under KV pressure the newest running request is preempted, not the oldest; its blocks go back and its output is kept', () => {
    // 6 blocks of 16 tokens; three 16-token prompts grow in lock step: one block each, then two,
    // and the third block of the first request finds the cache full.
    const e = engine({ num_gpu_blocks: 6 });
    const [a, b, c] = [add(e, 0, 16, 64), add(e, 1, 16, 64), add(e, 2, 16, 64)];
    let r = e.step();
    expect(r.admitted.map((s) => s.id)).toEqual([0, 1, 2]);
    expect(e.kv.numFree).toBe(3);
    for (let i = 0; i < 16; i++) {
      r = e.step();
      expect(r.preempted).toBe(0);
    }
    // Each now holds 32 tokens' KV in 2 blocks and needs a third for token 33.
    expect([a.total, b.total, c.total]).toEqual([33, 33, 33]);
    expect(e.kv.numFree).toBe(0);
    r = e.step();
    expect(r.preempted).toBe(1);
    expect(c.computed).toBe(0); // the newest: recompute from scratch
    expect(c.blocks).toEqual([]);
    expect(c.output).toBe(17); // generated tokens survive preemption
    expect(a.blocks).toHaveLength(3);
    expect(b.blocks).toHaveLength(3);
    expect(r.emitted.map((s) => s.id)).toEqual([0, 1]);
    expect(e.numRunning).toBe(2);
    expect(e.numWaiting).toBe(1);
    expect(e.kv.numFree).toBe(0);
  });

  it('a step that preempts admits nobody, even when the freed blocks would fit the next chunk', () => {
    // Budget 17 tokens: with one decode running, a preempted request's next chunk is 16 tokens,
    // one block, and one block is free right after the preemption.
    const e = engine({ num_gpu_blocks: 4, max_num_batched_tokens: 17 });
    const a = add(e, 0, 16, 100);
    const b = add(e, 1, 16, 100);
    let r = e.step();
    while (r.preempted === 0) r = e.step();
    expect(a.total).toBe(34); // a needed its third block for token 33, and sampled token 34
    expect(a.blocks).toHaveLength(3);
    expect(b.computed).toBe(0);
    expect(e.kv.numFree).toBe(1);
    expect(r.shape.seqs).toBe(1); // only a was scheduled
    expect(r.admitted).toEqual([]);
    expect(e.numWaiting).toBe(1);
    // The next step takes b back, first in line, with a 16-token chunk of its recompute.
    r = e.step();
    expect(r.preempted).toBe(0);
    expect(b.computed).toBe(16);
    expect(e.numWaiting).toBe(0);
    expect(r.admitted).toEqual([]); // re-admission is not a first admission
  });

  it('the prefix cache never covers a whole prompt: the last block is recomputed to sample from', () => {
    const e = engine({ num_gpu_blocks: 8 });
    const hashes = [101, 102];
    add(e, 0, 32, 1, hashes);
    expect(e.step().finished.map((s) => s.id)).toEqual([0]);
    expect(e.kv.matchPrefix(hashes)).toBe(2); // both blocks cached, now free
    const again = add(e, 1, 32, 1, hashes);
    const r = e.step();
    expect(again.cached_tokens).toBe(16);
    expect(r.shape.tokens).toBe(16);
    expect(r.finished).toEqual([again]);
    expect(e.counters.prefix_hits).toBe(16);
    expect(e.counters.prefix_queries).toBe(64);
  });

  it('without chunked prefill, a prompt exactly the step budget long is admitted whole in one step', () => {
    // budget 64 = max_model_len; a 48-token prompt is admitted first, then a 16-token one fills the
    // budget exactly (16 = 64 − 48): both run in step 1. A 17-token third waits for the next step.
    const e = engine({ enable_chunked_prefill: false, max_num_batched_tokens: 64, max_model_len: 64, num_gpu_blocks: 64 });
    add(e, 0, 48, 4);
    add(e, 1, 16, 4);
    add(e, 2, 17, 4);
    const r = e.step();
    expect(r.admitted.map((s) => s.id)).toEqual([0, 1]);
    expect(e.numWaiting).toBe(1);
    // alone, a prompt of exactly the budget is admitted whole
    const solo = engine({ enable_chunked_prefill: false, max_num_batched_tokens: 64, max_model_len: 64, num_gpu_blocks: 64 });
    const s = add(solo, 0, 64, 0);
    expect(solo.step().admitted.map((x) => x.id)).toEqual([0]);
    expect(s.computed).toBe(64);
  });
});
