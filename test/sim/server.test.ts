import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer } from '../../src/sim/server.js';
import type { SimServer } from '../../src/sim/server.js';
import { chunks, postJson, postSse, rawRequests } from './helpers.js';

let vllm: SimServer;
let llama: SimServer;

beforeAll(async () => {
  vllm = await startSimServer({ timing: { kind: 'fixed', prefillMs: 5, perTokenMs: 1 } });
  llama = await startSimServer({ timing: { kind: 'fixed', prefillMs: 5, perTokenMs: 1 }, dialect: 'llamacpp', modelName: 'llama' });
});
afterAll(async () => {
  await vllm.close();
  await llama.close();
});

describe('sim server: metadata endpoints', () => {
  it('lists the served model in OpenAI list format', async () => {
    const res = await fetch(`${vllm.url}/v1/models`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { object: string; data: { id: string; object: string; owned_by: string; created: number }[] };
    expect(body.object).toBe('list');
    expect(body.data).toHaveLength(1);
    expect(body.data[0]).toMatchObject({ id: 'sim-llama-3.1-8b', object: 'model', owned_by: 'vllm' });
    expect(typeof body.data[0]?.created).toBe('number');
  });

  it('answers /health with 200', async () => {
    expect((await fetch(`${vllm.url}/health`)).status).toBe(200);
    const l = await fetch(`${llama.url}/health`);
    expect(await l.json()).toEqual({ status: 'ok' });
  });

  it('404s unknown routes', async () => {
    expect((await fetch(`${vllm.url}/nope`)).status).toBe(404);
  });
});

describe('sim server: vLLM dialect', () => {
  it('streams completions, one token per chunk, finish_reason on the last, usage chunk apart', async () => {
    const r = await postSse(`${vllm.url}/v1/completions`, {
      model: 'sim-llama-3.1-8b', prompt: 'hello world, this is a prompt', max_tokens: 7, ignore_eos: true, stream: true,
      stream_options: { include_usage: true },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/event-stream');
    expect(r.data.at(-1)).toBe('[DONE]');
    const cs = chunks(r);
    expect(cs).toHaveLength(8);
    const toks = cs.slice(0, 7);
    for (const c of toks) {
      expect(c.object).toBe('text_completion');
      expect(c.choices).toHaveLength(1);
      expect(c.choices[0].text).toMatch(/^ \w+$/);
      expect(c.choices[0].logprobs).toBeNull();
    }
    expect(toks.slice(0, 6).every((c) => c.choices[0].finish_reason === null)).toBe(true);
    expect(toks[6].choices[0].finish_reason).toBe('length');
    expect(cs[7].choices).toEqual([]);
    // 'hello' ' world' ',' ' this' ' is' ' a' ' prompt' → 7 prompt tokens (shared estimate)
    expect(cs[7].usage).toEqual({ prompt_tokens: 7, completion_tokens: 7, total_tokens: 14 });
  });

  it('sends no usage unless asked (or usageAlways)', async () => {
    const r = await postSse(`${vllm.url}/v1/completions`, { prompt: 'x', max_tokens: 3, ignore_eos: true, stream: true });
    expect(chunks(r).some((c) => c.usage)).toBe(false);
    const always = await startSimServer({ timing: { kind: 'fixed', prefillMs: 1, perTokenMs: 1 }, usageAlways: true });
    try {
      const r2 = await postSse(`${always.url}/v1/completions`, { prompt: 'x', max_tokens: 3, ignore_eos: true, stream: true });
      expect(chunks(r2).at(-1).usage.completion_tokens).toBe(3);
    } finally {
      await always.close();
    }
  });

  it('streams chat with a role-only first delta and honours max_completion_tokens', async () => {
    const r = await postSse(`${vllm.url}/v1/chat/completions`, {
      messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hello there' }],
      max_completion_tokens: 4, ignore_eos: true, stream: true, stream_options: { include_usage: true },
    });
    const cs = chunks(r);
    expect(cs[0].object).toBe('chat.completion.chunk');
    expect(cs[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    const content = cs.filter((c) => c.choices.length > 0 && c.choices[0].delta.content);
    expect(content).toHaveLength(4);
    expect(content[3].choices[0].finish_reason).toBe('length');
    // ('be' ' brief' + 4) + ('hello' ' there' + 4) = 6 + 6 = 12
    expect(cs.at(-1).usage).toEqual({ prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 });
  });

  it('answers non-streaming completions and chat with usage', async () => {
    const c = await postJson(`${vllm.url}/v1/completions`, { prompt: 'abcd', max_tokens: 5, ignore_eos: true });
    expect(c.status).toBe(200);
    const cc = c.json as { object: string; choices: { text: string; finish_reason: string }[]; usage: unknown };
    expect(cc.object).toBe('text_completion');
    expect(cc.choices[0]?.text.trim().split(' ')).toHaveLength(5);
    expect(cc.usage).toEqual({ prompt_tokens: 1, completion_tokens: 5, total_tokens: 6 });
    const h = await postJson(`${vllm.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'hi' }], max_tokens: 2, ignore_eos: true });
    const hc = h.json as { object: string; choices: { message: { role: string; content: string } }[] };
    expect(hc.object).toBe('chat.completion');
    expect(hc.choices[0]?.message.role).toBe('assistant');
    expect(hc.choices[0]?.message.content.trim().split(' ')).toHaveLength(2);
  });

  it('keeps the connection alive across streamed responses', async () => {
    const r = await rawRequests(vllm.port, '/v1/completions', { prompt: 'x', max_tokens: 2, ignore_eos: true, stream: true }, 3);
    expect(r.responses).toBe(3);
    expect(r.closedByServer).toBe(false);
  });

  it('rejects an unknown model with 404 and bad JSON with 400, OpenAI error shape', async () => {
    const m = await postJson(`${vllm.url}/v1/completions`, { model: 'gpt-9', prompt: 'x' });
    expect(m.status).toBe(404);
    expect(m.json).toMatchObject({ error: { type: 'NotFoundError', code: 'model_not_found' } });
    expect((m.json.error as { message: string }).message).toContain('gpt-9');
    const b = await postJson(`${vllm.url}/v1/completions`, '{"prompt": ');
    expect(b.status).toBe(400);
    expect(b.json).toMatchObject({ error: { message: expect.any(String) as string } });
    const neg = await postJson(`${vllm.url}/v1/completions`, { prompt: 'x', max_tokens: -1 });
    expect(neg.status).toBe(400);
    const noMsg = await postJson(`${vllm.url}/v1/chat/completions`, { messages: [] });
    expect(noMsg.status).toBe(400);
  });

  it('stops early at a seeded EOS without ignore_eos, exactly max_tokens with it', async () => {
    const s = await startSimServer({ timing: { kind: 'fixed', prefillMs: 0, perTokenMs: 0.2 }, eosMeanTokens: 5, seed: 7 });
    try {
      const lens: string[] = [];
      for (let i = 0; i < 8; i++) {
        const r = await postJson(`${s.url}/v1/completions`, { prompt: 'x', max_tokens: 40 });
        const j = r.json as { usage: { completion_tokens: number }; choices: { finish_reason: string }[] };
        lens.push(`${j.usage.completion_tokens}:${j.choices[0]?.finish_reason}`);
      }
      expect(lens.some((l) => l.endsWith(':stop'))).toBe(true);
      for (const l of lens) {
        const [n, f] = l.split(':');
        expect(f === 'length' ? Number(n) === 40 : Number(n) < 40).toBe(true);
      }
      const e = await postJson(`${s.url}/v1/completions`, { prompt: 'x', max_tokens: 40, ignore_eos: true });
      expect((e.json as { usage: { completion_tokens: number } }).usage.completion_tokens).toBe(40);
    } finally {
      await s.close();
    }
  });
});

describe('sim server: llama.cpp dialect', () => {
  it('puts usage and timings in the last chunk with choices, and closes the socket after the stream', async () => {
    const r = await postSse(`${llama.url}/v1/chat/completions`, {
      model: 'llama', messages: [{ role: 'user', content: 'hello' }], max_tokens: 3, ignore_eos: true, stream: true,
    });
    expect(r.headers.get('connection')).toBe('keep-alive');
    const cs = chunks(r);
    const last = cs.at(-1);
    expect(last.choices).toHaveLength(1);
    expect(last.choices[0].finish_reason).toBe('length');
    // 'hello' = 1 token + 4 for the chat template
    expect(last.usage).toEqual({ prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 });
    expect(last.timings).toMatchObject({ prompt_n: 5, predicted_n: 3 });
    expect(cs.filter((c) => c.choices[0]?.delta?.content)).toHaveLength(3);
    expect(cs.slice(0, -1).every((c) => c.usage === undefined && c.choices[0].finish_reason === null)).toBe(true);

    const raw = await rawRequests(llama.port, '/v1/completions', { prompt: 'x', max_tokens: 2, ignore_eos: true, stream: true }, 2);
    expect(raw.responses).toBe(1);
    expect(raw.closedByServer).toBe(true);
    expect(raw.raw.toLowerCase()).toContain('connection: keep-alive');
  });

  it('never answers a second request on the connection, even one sent the instant the first ended', async () => {
    for (let i = 0; i < 5; i++) {
      const raw = await rawRequests(llama.port, '/v1/completions', { prompt: 'x', max_tokens: 2, ignore_eos: true, stream: true }, 2, 0);
      expect(raw.responses).toBe(1);
      expect(raw.raw.split('HTTP/1.1 200').length - 1).toBe(1);
      expect(raw.closedByServer).toBe(true);
    }
  });

  it('streams completions with usage in the finishing chunk even when not asked', async () => {
    const r = await postSse(`${llama.url}/v1/completions`, { prompt: 'hello', max_tokens: 2, ignore_eos: true, stream: true });
    const cs = chunks(r);
    expect(cs).toHaveLength(3);
    expect(cs[2]).toMatchObject({ object: 'text_completion', choices: [{ text: '', finish_reason: 'length' }], usage: { completion_tokens: 2 } });
  });
});

describe('sim server: fixed timing and lifecycle', () => {
  it('first token prefillMs after the request, then one every perTokenMs (ground truth), none seen early by the client', async () => {
    const s = await startSimServer({ timing: { kind: 'fixed', prefillMs: 60, perTokenMs: 15 }, collectGroundTruth: true });
    try {
      const r = await postSse(`${s.url}/v1/completions`, { prompt: 'x', max_tokens: 6, ignore_eos: true, stream: true });
      const g = s.groundTruth[0]!;
      // scheduled on absolute times: exact, however late the timers fire
      g.token_ms.forEach((t, k) => expect(t - g.arrival_ms).toBeCloseTo(60 + 15 * k, 6));
      g.written_ms.forEach((w, k) => expect(w).toBeGreaterThanOrEqual(g.token_ms[k]!));
      // the client sent before the server's arrival and read after the write
      expect(r.times[0]! - r.sentMs).toBeGreaterThanOrEqual(60);
      expect(r.times[5]! - r.sentMs).toBeGreaterThanOrEqual(60 + 5 * 15);
    } finally {
      await s.close();
    }
  });

  it('runs many servers in one process and close() ends open streams promptly', async () => {
    const servers = await Promise.all([1, 2, 3].map(() => startSimServer({ timing: { kind: 'fixed', prefillMs: 10, perTokenMs: 1000 } })));
    expect(new Set(servers.map((s) => s.port)).size).toBe(3);
    const s = servers[0]!;
    const pending = postSse(`${s.url}/v1/completions`, { prompt: 'x', max_tokens: 100, ignore_eos: true, stream: true }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 50));
    // The stream would last 100 s and keep-alive 60 s: close() returning within the test's time
    // limit is the check.
    await Promise.all(servers.map((x) => x.close()));
    const result = await pending;
    expect(result instanceof Error || (result as { data: string[] }).data.at(-1) !== '[DONE]').toBe(true);
  });
});
