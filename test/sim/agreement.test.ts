import { describe, expect, it } from 'vitest';
import { startSimServer } from '../../src/sim/server.js';
import { runVirtual } from '../../src/sim/virtual.js';
import { postSse, sleep, tokenPrompt } from './helpers.js';

/**
 * The same 16 requests (open loop, 25 ms apart, prompts of 64–1,024 tokens, 12 output tokens)
 * through the real-time HTTP server and the virtual-time driver of the same engine (H100,
 * Llama-3.1-8B), the virtual run fed the server's own arrival times. The server's ground truth
 * must match the virtual timeline token for token (within 0.01 ms) however late the machine runs
 * the server's timers, and each client-side time can only come after the server's.
 * How close the client's own figures come is a wall-clock question: test/timing/agreement.
 */
describe('real time vs virtual time', () => {
  it('agree: identical step timeline server-side; the client sees every token after the server scheduled it', async () => {
    const n = 16;
    const prompts = Array.from({ length: n }, (_, i) => 64 * (1 + (i % 16)));
    const s = await startSimServer({ timing: { kind: 'engine', hardware: 'h100', model: 'llama-3.1-8b' }, collectGroundTruth: true });
    let client: { ttft: number; e2e: number }[];
    try {
      await postSse(`${s.url}/v1/completions`, { prompt: 'warm up', max_tokens: 2, ignore_eos: true, stream: true });
      client = await Promise.all(
        prompts.map(async (p, i) => {
          await sleep(i * 25);
          const r = await postSse(`${s.url}/v1/completions`, { prompt: tokenPrompt(p, i + 1), max_tokens: 12, ignore_eos: true, stream: true });
          return { ttft: r.times[0]! - r.sentMs, e2e: r.times[11]! - r.sentMs };
        }),
      );
    } finally {
      await s.close();
    }
    const truth = s.groundTruth.slice(1).sort((a, b) => a.id - b.id); // ids follow arrival order
    expect(truth).toHaveLength(n);
    const t0 = truth[0]!.arrival_ms;
    const order = truth.map((g) => prompts.indexOf(g.prompt_tokens));
    const { records } = runVirtual({
      hardware: 'h100',
      model: 'llama-3.1-8b',
      requests: truth.map((g, j) => ({ id: j, scheduled_ms: g.arrival_ms - t0, prompt_tokens: g.prompt_tokens, max_tokens: 12 })),
    });
    for (let j = 0; j < n; j++) {
      const g = truth[j]!;
      const v = records.find((r) => r.id === j)!;
      expect(g.token_ms).toHaveLength(12);
      for (let k = 0; k < 12; k++) expect(Math.abs(g.token_ms[k]! - t0 - v.chunk_ms[k]!)).toBeLessThan(0.01);
      // The client sent before the server saw the request and read each token after it was due.
      const c = client[order[j]!]!;
      expect(c.ttft).toBeGreaterThanOrEqual(g.token_ms[0]! - g.arrival_ms - 0.01);
      expect(c.e2e).toBeGreaterThanOrEqual(g.token_ms[11]! - g.arrival_ms - 0.01);
    }
  });
});
