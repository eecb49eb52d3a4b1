import { describe, expect, it } from 'vitest';
import { startSimServer } from '../../src/sim/server.js';
import { chunks, postJson, postSse, tokenPrompt } from './helpers.js';

describe('sim server with engine timing', () => {
  it('streams tokens at the roofline decode pace of the chosen GPU', async () => {
    const run = async (hardware: string): Promise<number> => {
      const s = await startSimServer({ timing: { kind: 'engine', hardware, model: 'llama-3.1-8b' }, collectGroundTruth: true });
      try {
        await postSse(`${s.url}/v1/completions`, { prompt: tokenPrompt(32, 1), max_tokens: 6, ignore_eos: true, stream: true });
        const t = s.groundTruth[0]!.token_ms;
        return (t[5]! - t[1]!) / 4;
      } finally {
        await s.close();
      }
    };
    const h100 = await run('h100');
    const h200 = await run('h200');
    // batch-1 decode: 16.06 GB / (3.35 TB/s × 0.8) + 0.558 ms (a CUDA-graph step) ≈ 6.55 ms; H200: 16.06 / (4.8 × 0.8) + 0.558 ≈ 4.74 ms
    expect(h100).toBeCloseTo(6.55, 1);
    expect(h200).toBeCloseTo(4.74, 1);
  });

  it('multi-step windows (vLLM V0 --num-scheduler-steps) stream every token once, in order, a window at a time', async () => {
    const engine = { num_scheduler_steps: 4, enable_chunked_prefill: false, prefill_first: true, max_num_batched_tokens: 4096, max_model_len: 4096 };
    const s = await startSimServer({ timing: { kind: 'engine', hardware: 'h100', model: 'llama-3.1-8b', engine }, collectGroundTruth: true });
    try {
      const r = await postSse(`${s.url}/v1/completions`, { prompt: tokenPrompt(32, 1), max_tokens: 9, ignore_eos: true, stream: true, stream_options: { include_usage: true } });
      expect(chunks(r).at(-1).usage.completion_tokens).toBe(9);
      const t = s.groundTruth[0]!.token_ms;
      expect(t).toHaveLength(9);
      // token 0 from the prefill step, then windows of 4: tokens 1–4 share one time, 5–8 the next
      expect(new Set(t.slice(1, 5)).size).toBe(1);
      expect(new Set(t.slice(5, 9)).size).toBe(1);
      expect(t[5]! > t[4]! && t[1]! > t[0]!).toBe(true);
    } finally {
      await s.close();
    }
  });

  it('answers 400 when prompt + max_tokens exceed the context, before any stream starts', async () => {
    const s = await startSimServer({ timing: { kind: 'engine', hardware: 'h100', model: 'llama-3.1-8b', engine: { max_model_len: 2048 } } });
    try {
      const models = (await (await fetch(`${s.url}/v1/models`)).json()) as { data: { max_model_len: number }[] };
      expect(models.data[0]?.max_model_len).toBe(2048);
      const r = await postJson(`${s.url}/v1/completions`, { prompt: tokenPrompt(2000, 1), max_tokens: 100, stream: true });
      expect(r.status).toBe(400);
      expect((r.json.error as { message: string }).message).toContain('maximum context length is 2048');
      const ok = await postSse(`${s.url}/v1/completions`, { prompt: tokenPrompt(100, 2), max_tokens: 3, ignore_eos: true, stream: true, stream_options: { include_usage: true } });
      expect(chunks(ok).at(-1).usage).toEqual({ prompt_tokens: 100, completion_tokens: 3, total_tokens: 103 });
    } finally {
      await s.close();
    }
  });

  it('counts prompt tokens with a configured tokenizer', async () => {
    const s = await startSimServer({ timing: { kind: 'fixed', prefillMs: 1, perTokenMs: 1 }, countTokens: (t) => t.split(/\s+/).filter(Boolean).length });
    try {
      const r = await postJson(`${s.url}/v1/completions`, { prompt: 'one two three four five', max_tokens: 1 });
      expect((r.json.usage as { prompt_tokens: number }).prompt_tokens).toBe(5);
    } finally {
      await s.close();
    }
  });
});
