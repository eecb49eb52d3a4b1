import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GroundTruthEntry } from '../../src/sim/server.js';
import { startSimServer } from '../../src/sim/server.js';
import { postSse } from './helpers.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('ground truth', () => {
  it('records admit and emit times per token, in memory and as JSONL; the client sees each token after it was emitted', async () => {
    const path = join(tempDir('sim-gt'), 'truth.jsonl');
    const s = await startSimServer({ timing: { kind: 'fixed', prefillMs: 20, perTokenMs: 5 }, collectGroundTruth: true, groundTruthPath: path });
    const clients = [];
    try {
      for (let i = 0; i < 3; i++) clients.push(await postSse(`${s.url}/v1/completions`, { prompt: 'abc', max_tokens: 6, ignore_eos: true, stream: true }));
    } finally {
      await s.close();
    }
    const mem = s.groundTruth;
    expect(mem).toHaveLength(3);
    const lines = readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as GroundTruthEntry);
    expect(lines).toEqual(mem);
    for (let i = 0; i < 3; i++) {
      const e = mem[i]!;
      expect(e).toMatchObject({ completed: true, output_tokens: 6, prompt_tokens: 1 });
      expect(e.token_ms).toHaveLength(6);
      expect(e.admitted_ms).toBe(e.arrival_ms);
      // fixed timing: token k at arrival + 20 + 5k, exactly (scheduled times)
      e.token_ms.forEach((t, k) => expect(t).toBeCloseTo(e.arrival_ms + 20 + 5 * k, 6));
      expect(e.end_ms).toBe(e.token_ms[5]);
      // written after it was due, and in order
      expect(e.written_ms).toHaveLength(6);
      e.written_ms.forEach((w, k) => {
        expect(w).toBeGreaterThanOrEqual(e.token_ms[k]!);
        if (k > 0) expect(w).toBeGreaterThanOrEqual(e.written_ms[k - 1]!);
      });
      // same process, same clock: each chunk arrives after it was written
      const c = clients[i]!;
      for (let k = 0; k < 6; k++) {
        const lag = c.times[k]! - e.written_ms[k]!;
        expect(lag).toBeGreaterThanOrEqual(0); // causality; how small the lag is: test/timing/
      }
    }
  });

  it('a cut inside a batch of tokens (one multi-step window): exactly the tokens before the cut are written', async () => {
    // Engine timing with 4-step windows: tokens 1–4, 5–8, 9–11 each reach the stream together, so
    // a disconnect at a token with others of its window before it falls in a batch. Seed 3 puts
    // the cut at a token that is not its window's first (checked below), deterministically.
    const engine = { num_scheduler_steps: 4, enable_chunked_prefill: false, prefill_first: true, max_num_batched_tokens: 4096, max_model_len: 4096 };
    const s = await startSimServer({ timing: { kind: 'engine', hardware: 'h100', model: 'llama-3.1-8b', engine }, collectGroundTruth: true, faults: { disconnectRate: 1, seed: 3 } });
    try {
      const res = await fetch(`${s.url}/v1/completions`, { method: 'POST', body: JSON.stringify({ prompt: 'abc', max_tokens: 12, ignore_eos: true, stream: true }) });
      let text = '';
      try {
        for await (const c of res.body!) text += Buffer.from(c as Uint8Array).toString();
      } catch {
        // the cut is the point
      }
      const [e] = s.groundTruth;
      expect(e!.completed).toBe(false);
      const cut = e!.token_ms.length - 1; // the token the fault fell on: produced, never written
      expect(cut).toBeGreaterThan(1);
      expect(e!.token_ms[cut]).toBe(e!.token_ms[cut - 1]); // in a batch: same window as the token before it
      expect(e!.written_ms).toHaveLength(cut);
      expect(text.split('data: ').length - 1).toBe(cut);
      expect(text).not.toContain('[DONE]');
    } finally {
      await s.close();
    }
  });

  it('a cut stream: written_ms stops at the last token that reached the socket', async () => {
    const s = await startSimServer({ timing: { kind: 'fixed', prefillMs: 5, perTokenMs: 3 }, collectGroundTruth: true, faults: { disconnectRate: 1, seed: 3 } });
    try {
      const res = await fetch(`${s.url}/v1/completions`, { method: 'POST', body: JSON.stringify({ prompt: 'abc', max_tokens: 12, ignore_eos: true, stream: true }) });
      let text = '';
      try {
        for await (const c of res.body!) text += Buffer.from(c as Uint8Array).toString();
      } catch {
        // the cut is the point
      }
      await new Promise((r) => setTimeout(r, 20));
      const [e] = s.groundTruth;
      expect(e!.completed).toBe(false);
      // the token the fault fell on was produced but never written
      expect(e!.written_ms).toHaveLength(e!.token_ms.length - 1);
      expect(text.split('data: ').length - 1).toBe(e!.written_ms.length);
    } finally {
      await s.close();
    }
  });
});
