import { describe, expect, it } from 'vitest';
import type { FaultOptions } from '../../src/sim/faults.js';
import { startSimServer } from '../../src/sim/server.js';
import type { SimServer } from '../../src/sim/server.js';
import { chunks, metric, postJson, postSse, scrape, sleep } from './helpers.js';

async function withFaults(faults: FaultOptions, fn: (s: SimServer) => Promise<void>): Promise<void> {
  const s = await startSimServer({ timing: { kind: 'fixed', prefillMs: 5, perTokenMs: 3 }, faults });
  try {
    await fn(s);
  } finally {
    await s.close();
  }
}

const streamBody = { prompt: 'hello', max_tokens: 8, ignore_eos: true, stream: true };

/** Reads a stream to its end or failure; never throws. */
async function readStream(url: string): Promise<{ status: number; text: string; error: string | null; headersMs: number; endMs: number; lastDataMs: number }> {
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/completions`, { method: 'POST', body: JSON.stringify(streamBody) });
  const headersMs = performance.now() - t0;
  let text = '';
  let error: string | null = null;
  let lastDataMs = 0;
  try {
    for await (const c of res.body!) {
      text += Buffer.from(c as Uint8Array).toString();
      lastDataMs = performance.now() - t0;
    }
  } catch (e) {
    error = (e as Error).message;
  }
  return { status: res.status, text, error, headersMs, endMs: performance.now() - t0, lastDataMs };
}

describe('fault injection, each visible on the wire', () => {
  it('429 with Retry-After and an OpenAI rate-limit body', () =>
    withFaults({ http429Rate: 1, retryAfterS: 3 }, async (s) => {
      const r = await postJson(`${s.url}/v1/completions`, streamBody);
      expect(r.status).toBe(429);
      expect(r.headers.get('retry-after')).toBe('3');
      expect(r.json).toMatchObject({ error: { type: 'rate_limit_exceeded' } });
    }));

  it('HTTP 500 before any header', () =>
    withFaults({ http500Rate: 1 }, async (s) => {
      const r = await postJson(`${s.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'x' }], stream: true });
      expect(r.status).toBe(500);
      expect(r.json).toMatchObject({ error: { type: 'InternalServerError', code: 500 } });
    }));

  it('out-of-memory: an error event inside the 200 stream, or a 500 when not streaming', () =>
    withFaults({ oomRate: 1 }, async (s) => {
      const r = await postSse(`${s.url}/v1/completions`, streamBody);
      expect(r.status).toBe(200);
      const cs = chunks(r);
      expect(cs[0].choices[0].text).toBeTruthy(); // one token, then the failure
      expect(cs.at(-1).error.message).toContain('CUDA out of memory');
      expect(r.data.at(-1)).toBe('[DONE]');
      const n = await postJson(`${s.url}/v1/completions`, { prompt: 'x', max_tokens: 4 });
      expect(n.status).toBe(500);
      expect(JSON.stringify(n.json)).toContain('CUDA out of memory');
    }));

  it('mid-stream disconnect: some tokens, then the socket is gone without [DONE]', () =>
    withFaults({ disconnectRate: 1 }, async (s) => {
      const r = await readStream(s.url);
      expect(r.status).toBe(200);
      expect(r.text).toContain('"text":" ');
      expect(r.text).not.toContain('[DONE]');
      expect(r.error).not.toBeNull(); // chunked body cut short
    }));

  it('stall: the stream goes silent longer than a client timeout, then drops', () =>
    withFaults({ stallRate: 1, stallMs: 300 }, async (s) => {
      const r = await readStream(s.url);
      expect(r.text).not.toContain('[DONE]');
      // The request left before the server's stall began and the drop came after it: without the
      // stall the whole stream takes 5 + 8 × 3 ms.
      expect(r.endMs).toBeGreaterThanOrEqual(299);
    }));

  it('malformed SSE: one data line is not valid JSON', () =>
    withFaults({ malformedRate: 1 }, async (s) => {
      const r = await postSse(`${s.url}/v1/completions`, streamBody);
      const bad = r.data.filter((d) => {
        if (d === '[DONE]') return false;
        try {
          JSON.parse(d);
          return false;
        } catch {
          return true;
        }
      });
      expect(bad).toHaveLength(1);
      expect(r.data.at(-1)).toBe('[DONE]');
    }));

  it('slow headers: the response head waits slowHeadersMs', () =>
    withFaults({ slowHeadersRate: 1, slowHeadersMs: 250 }, async (s) => {
      const r = await readStream(s.url);
      expect(r.headersMs).toBeGreaterThanOrEqual(249); // sent before the server started waiting
      expect(r.text).toContain('[DONE]');
    }));

  it('restart: connections refused for N ms, then served again with counters reset', async () => {
    const s = await startSimServer({ timing: { kind: 'fixed', prefillMs: 1, perTokenMs: 1 } });
    try {
      await postSse(`${s.url}/v1/completions`, streamBody);
      expect(metric(await scrape(s.url), 'vllm:generation_tokens_total')).toBe(8);
      // Down for long enough that no delay of this test process can outlast it.
      const back = s.restart(2000);
      const attempt = () => fetch(`${s.url}/health`).then(() => 'answered', (e: Error & { cause?: { code?: string } }) => String(e.cause?.code));
      // a pooled keep-alive socket may first see its connection closed; then connects are refused
      let seen = await attempt();
      for (let i = 0; i < 200 && seen !== 'ECONNREFUSED'; i++) seen = await attempt();
      expect(seen).toBe('ECONNREFUSED');
      await back;
      expect(metric(await scrape(s.url), 'vllm:generation_tokens_total')).toBe(0);
      const r = await postSse(`${s.url}/v1/completions`, streamBody);
      expect(r.data.at(-1)).toBe('[DONE]');
    } finally {
      await s.close();
    }
  });

  it('scheduled restart from the faults option', async () => {
    // Bounds from causality, not from when this process got to run: the server went down after
    // it was started plus atMs and after the last probe it answered was sent, and it answered
    // again only once downMs had passed since. A probe's answer may be read arbitrarily late on
    // a loaded machine, so the time an answer is read bounds nothing from below.
    const atMs = 30;
    const downMs = 400;
    const before = performance.now();
    await withFaults({ restart: { atMs, downMs } }, async (s) => {
      const up = () => fetch(`${s.url}/health`).then((r) => r.status === 200, () => false);
      // libuv timers may fire up to 1 ms early (a whole-millisecond loop clock)
      let wentDownAfter = before + atMs - 1;
      let seenDown = false;
      for (let i = 0; i < 5000 && !seenDown; i++) {
        const sent = performance.now();
        if (await up()) wentDownAfter = Math.max(wentDownAfter, sent);
        else seenDown = true;
      }
      expect(seenDown).toBe(true);
      let backAt = NaN;
      for (let i = 0; i < 5000 && Number.isNaN(backAt); i++) {
        if (await up()) backAt = performance.now();
        else await sleep(2);
      }
      expect(backAt - wentDownAfter).toBeGreaterThanOrEqual(downMs - 1);
    });
  });

  it('rates are per request and seeded', () =>
    withFaults({ http500Rate: 0.5, seed: 42 }, async (s) => {
      const codes: number[] = [];
      for (let i = 0; i < 20; i++) codes.push((await postJson(`${s.url}/v1/completions`, { prompt: 'x', max_tokens: 1 })).status);
      const fails = codes.filter((c) => c === 500).length;
      expect(fails).toBeGreaterThan(3);
      expect(fails).toBeLessThan(17);
      expect(codes.filter((c) => c === 200).length).toBe(20 - fails);
    }));
});
