import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyRecord, type RequestRecord } from '../../src/record/record.js';
import { HttpTarget, type TargetConfig } from '../../src/client/http-client.js';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import type { WorkItem } from '../../src/workload/types.js';
import { chunk, sleep, sseHeaders, startTestServer } from '../helpers/servers.js';

const item = (max_tokens = 8): WorkItem => ({
  prompt: 'one two three four five six seven eight',
  messages: null,
  prompt_tokens: 8,
  max_tokens,
  task: null,
  expected: null,
  session: null,
  turn: null,
});

function target(baseUrl: string, over: Partial<TargetConfig> = {}): HttpTarget {
  const t0 = performance.now();
  return new HttpTarget(
    {
      baseUrl,
      path: '/v1/completions',
      model: 'sim-llama-3.1-8b',
      apiKey: null,
      headers: {},
      extraBody: {},
      stream: true,
      ignoreEos: true,
      timeoutMs: 5000,
      keepText: false,
      ...over,
    },
    () => performance.now() - t0,
  );
}

const send = (t: HttpTarget, n = 8, id = 0): Promise<RequestRecord> => t.send(emptyRecord(id, 0), t.prepare(item(n)));

describe('HttpTarget against the simulator', () => {
  let vllm: SimServer;
  let llamacpp: SimServer;
  beforeAll(async () => {
    vllm = await startSimServer({ timing: { kind: 'fixed', prefillMs: 40, perTokenMs: 5 }, dialect: 'vllm' });
    llamacpp = await startSimServer({ timing: { kind: 'fixed', prefillMs: 5, perTokenMs: 1 }, dialect: 'llamacpp' });
  });
  afterAll(async () => {
    await vllm.close();
    await llamacpp.close();
  });

  it('completions stream: exact usage, one chunk time per token, TTFT ≥ prefill', async () => {
    const t = target(vllm.url);
    const rec = await send(t, 10);
    t.close();
    expect(rec.status).toBe('ok');
    expect(rec.token_source).toBe('usage');
    expect(rec.output_tokens).toBe(10);
    expect(rec.chunk_ms.length).toBe(10);
    expect(rec.first_token_ms! - rec.sent_ms).toBeGreaterThanOrEqual(39);
    // prefill, then 9 gaps of 5 ms: the last token cannot arrive sooner after the send
    expect(rec.end_ms - rec.sent_ms).toBeGreaterThanOrEqual(40 + 9 * 5 - 1);
    expect(rec.finish_reason).toBe('length');
    expect(rec.http_status).toBe(200);
  });

  it('chat stream: the role-only first delta is not the first token', async () => {
    const t = target(vllm.url, { path: '/v1/chat/completions' });
    const rec = await send(t, 5);
    t.close();
    expect(rec.status).toBe('ok');
    expect(rec.chunk_ms.length).toBe(5);
    expect(rec.output_tokens).toBe(5);
    expect(rec.first_token_ms! - rec.sent_ms).toBeGreaterThanOrEqual(39);
  });

  it('non-streaming: tokens from usage, first token = end', async () => {
    const t = target(vllm.url, { stream: false });
    const rec = await send(t, 6);
    t.close();
    expect(rec.status).toBe('ok');
    expect(rec.output_tokens).toBe(6);
    expect(rec.first_token_ms).toBe(rec.end_ms);
  });

  it('llama.cpp closes every connection while advertising keep-alive: no request fails, usage exact', async () => {
    const t = target(llamacpp.url);
    const recs: RequestRecord[] = [];
    for (let i = 0; i < 40; i++) recs.push(await send(t, 3, i)); // back-to-back: the reuse race
    const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => send(t, 3, 100 + i)));
    t.close();
    for (const r of [...recs, ...burst]) {
      expect(r.status, r.error_message ?? '').toBe('ok');
      expect(r.output_tokens).toBe(3);
      expect(r.token_source).toBe('usage');
    }
    // Having seen every connection closed after one response, the client stopped pooling.
    expect(t.poolsConnections).toBe(false);
  });
});

describe('HttpTarget connection reuse', () => {
  it('keeps connections alive across requests to a well-behaved server', async () => {
    let connections = 0;
    const srv = await startTestServer((_req, res) => {
      sseHeaders(res);
      res.end(`${chunk('x', 'stop')}data: [DONE]\n\n`);
    });
    srv.server.on('connection', () => connections++);
    const t = target(srv.url);
    for (let i = 0; i < 20; i++) expect((await send(t, 1, i)).status).toBe('ok');
    const parallel = await Promise.all(Array.from({ length: 5 }, (_, i) => send(t, 1, 100 + i)));
    t.close();
    await srv.close();
    for (const r of parallel) expect(r.status).toBe('ok');
    expect(connections).toBeLessThanOrEqual(5);
    expect(t.poolsConnections).toBe(true);
    expect(t.staleSocketRetries).toBe(0);
  });

  it('reads close-delimited and content-length bodies, and HTTP/1.0 servers', async () => {
    const srv = await startTestServer((req, res) => {
      const events = `${chunk('a')}${chunk('b', 'stop')}data: [DONE]\n\n`;
      if (req.headers['x-mode'] === 'length') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'content-length': Buffer.byteLength(events) });
        res.end(events);
      } else {
        // No length, no chunking: the body ends when the server closes the connection.
        res.socket!.end(`HTTP/1.0 200 OK\r\ncontent-type: text/event-stream\r\n\r\n${events}`);
      }
    });
    const t1 = target(srv.url, { headers: { 'x-mode': 'length' } });
    const t2 = target(srv.url, { headers: { 'x-mode': 'close' } });
    const [byLength, byClose] = await Promise.all([send(t1), send(t2)]);
    t1.close();
    t2.close();
    await srv.close();
    expect(byLength).toMatchObject({ status: 'ok', output_tokens: 2, finish_reason: 'stop' });
    expect(byClose).toMatchObject({ status: 'ok', output_tokens: 2, finish_reason: 'stop' });
  });

  it('a base URL with a path prefix keeps it, and the Host header names the server', async () => {
    let seen: { url?: string; host?: string } = {};
    const srv = await startTestServer((req, res) => {
      seen = { url: req.url, host: req.headers.host };
      sseHeaders(res);
      res.end(`${chunk('x', 'stop')}data: [DONE]\n\n`);
    });
    const t = target(`${srv.url}/gateway/llm`);
    const rec = await send(t);
    t.close();
    await srv.close();
    expect(rec.status).toBe('ok');
    expect(seen.url).toBe('/gateway/llm/v1/completions');
    expect(seen.host).toBe(new URL(srv.url).host);
  });

  it('a response that is not HTTP is a malformed_stream error', async () => {
    const srv = await startTestServer((_req, res) => {
      res.socket!.end('SSH-2.0-OpenSSH_9.2\r\n\r\n');
    });
    const t = target(srv.url);
    const rec = await send(t);
    t.close();
    await srv.close();
    expect(rec).toMatchObject({ status: 'error', error_class: 'malformed_stream' });
  });
});

describe('HttpTarget classifies misbehaviour and never throws', () => {
  it('HTTP errors: 500, 429 and 404 by class, with the server message', async () => {
    const srv = await startTestServer((req, res) => {
      const code = Number(req.headers['x-code']);
      res.writeHead(code, { 'content-type': 'application/json', ...(code === 429 ? { 'retry-after': '1' } : {}) });
      res.end(JSON.stringify({ error: { message: `boom ${code}`, type: 'x' } }));
    });
    const results: Record<number, RequestRecord> = {};
    for (const code of [500, 429, 404]) {
      const t = target(srv.url, { headers: { 'x-code': String(code) } });
      results[code] = await send(t);
      t.close();
    }
    await srv.close();
    expect(results[500]).toMatchObject({ status: 'error', error_class: 'http_5xx', http_status: 500 });
    expect(results[429]).toMatchObject({ status: 'error', error_class: 'http_429' });
    expect(results[404]).toMatchObject({ status: 'error', error_class: 'http_4xx' });
    expect(results[500]!.error_message).toContain('boom 500');
  });

  it('a mid-stream disconnect keeps the chunks that arrived', async () => {
    const srv = await startTestServer(async (_req, res) => {
      sseHeaders(res);
      res.write(chunk('a'));
      await sleep(10);
      res.write(chunk('b'));
      await sleep(10);
      res.socket?.destroy();
    });
    const t = target(srv.url);
    const rec = await send(t);
    t.close();
    await srv.close();
    expect(rec).toMatchObject({ status: 'error', error_class: 'disconnect' });
    expect(rec.chunk_ms.length).toBe(2);
    expect(rec.output_tokens).toBe(2);
    expect(rec.token_source).toBe('chunks');
  });

  it('a stream that ends cleanly without finish_reason or [DONE] is a disconnect', async () => {
    const srv = await startTestServer((_req, res) => {
      sseHeaders(res);
      res.end(chunk('a'));
    });
    const t = target(srv.url);
    const rec = await send(t);
    t.close();
    await srv.close();
    expect(rec.error_class).toBe('disconnect');
  });

  it('malformed SSE payloads and in-stream error events', async () => {
    const srv = await startTestServer((req, res) => {
      sseHeaders(res);
      if (req.headers['x-mode'] === 'malformed') res.end(`${chunk('a')}data: {not json\n\n${chunk('b', 'stop')}data: [DONE]\n\n`);
      else res.end(`${chunk('a')}data: {"error":{"message":"CUDA out of memory","code":500}}\n\ndata: [DONE]\n\n`);
    });
    const t1 = target(srv.url, { headers: { 'x-mode': 'malformed' } });
    const t2 = target(srv.url, { headers: { 'x-mode': 'error' } });
    const [malformed, errored] = await Promise.all([send(t1), send(t2)]);
    t1.close();
    t2.close();
    await srv.close();
    expect(malformed).toMatchObject({ status: 'error', error_class: 'malformed_stream' });
    expect(errored).toMatchObject({ status: 'error', error_class: 'server_error_event' });
    expect(errored.error_message).toContain('out of memory');
  });

  it('no usage from the server: output counted from content chunks; empty output is an error', async () => {
    const srv = await startTestServer((req, res) => {
      sseHeaders(res);
      if (req.headers['x-mode'] === 'empty') res.end(`${chunk('', 'stop')}data: [DONE]\n\n`);
      else res.end(`${chunk('x')}${chunk('y')}${chunk('z', 'stop')}data: [DONE]\n\n`);
    });
    const t1 = target(srv.url);
    const t2 = target(srv.url, { headers: { 'x-mode': 'empty' } });
    const [three, empty] = await Promise.all([send(t1), send(t2)]);
    t1.close();
    t2.close();
    await srv.close();
    expect(three).toMatchObject({ status: 'ok', output_tokens: 3, token_source: 'chunks', finish_reason: 'stop', prompt_tokens: 8 });
    expect(empty).toMatchObject({ status: 'error', error_class: 'empty_response' });
  });

  it('a stalled stream hits the per-request timeout and keeps what arrived', async () => {
    const srv = await startTestServer((_req, res) => {
      sseHeaders(res);
      res.write(chunk('a'));
      // then stall forever (the socket is destroyed by close())
    });
    const t = target(srv.url, { timeoutMs: 150 });
    const rec = await send(t);
    t.close();
    await srv.close();
    expect(rec).toMatchObject({ status: 'timeout', error_class: 'timeout' });
    expect(rec.chunk_ms.length).toBe(1);
    expect(rec.end_ms - rec.sent_ms).toBeGreaterThanOrEqual(149); // how soon after: test/timing/
  });

  it('slow headers also time out', async () => {
    const srv = await startTestServer(() => {
      /* never answers */
    });
    const t = target(srv.url, { timeoutMs: 100 });
    const rec = await send(t);
    t.close();
    await srv.close();
    expect(rec).toMatchObject({ status: 'timeout', error_class: 'timeout', http_status: null });
  });

  it('connection refused is a connect error', async () => {
    const srv = await startTestServer(() => {});
    const url = srv.url;
    await srv.close();
    const t = target(url);
    const rec = await send(t);
    t.close();
    expect(rec).toMatchObject({ status: 'error', error_class: 'connect' });
  });

  it('cancelAll aborts requests in flight as cancelled', async () => {
    const srv = await startTestServer((_req, res) => {
      sseHeaders(res);
      res.write(chunk('a'));
    });
    const t = target(srv.url);
    const p = Promise.all([send(t, 8, 1), send(t, 8, 2)]);
    await sleep(50);
    t.cancelAll();
    const recs = await p;
    const late = await send(t, 8, 3);
    t.close();
    await srv.close();
    for (const r of recs) expect(r).toMatchObject({ status: 'cancelled', error_class: 'cancelled' });
    expect(late.status).toBe('cancelled');
  });

  it('sends the API key as a bearer token and merges --extra-body', async () => {
    let seen: { auth?: string; body?: Record<string, unknown> } = {};
    const srv = await startTestServer((req, res, body) => {
      seen = { auth: req.headers.authorization, body: JSON.parse(body) as Record<string, unknown> };
      sseHeaders(res);
      res.end(`${chunk('x', 'stop')}data: [DONE]\n\n`);
    });
    const t = target(srv.url, { apiKey: 'sk-test', extraBody: { temperature: 0, ignore_eos: false } });
    await send(t, 4);
    t.close();
    await srv.close();
    expect(seen.auth).toBe('Bearer sk-test');
    expect(seen.body).toMatchObject({ model: 'sim-llama-3.1-8b', max_tokens: 4, stream: true, stream_options: { include_usage: true }, temperature: 0, ignore_eos: false });
  });
});
