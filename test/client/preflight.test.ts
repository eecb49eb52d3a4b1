/**
 * Pre-flight against small misbehaving servers: transient faults are retried within the stated
 * bound (backoff recorded, never slept: the sleep is injected), what was received is reported,
 * the server's context length and prompt counting are read.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { preflight, type PreflightOptions } from '../../src/client/preflight.js';
import { PREFLIGHT_RETRY } from '../../src/client/retry.js';
import { UserError } from '../../src/errors/user-error.js';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import { chunk, sseHeaders, startTestServer, type TestServer } from '../helpers/servers.js';

const cfg = (baseUrl: string, model: string | null = 'm') => ({
  baseUrl,
  path: '/v1/completions',
  model,
  apiKey: null,
  headers: {},
  extraBody: {},
  stream: true,
  ignoreEos: false,
  timeoutMs: 5000,
  keepText: false,
});

/** Records the backoff instead of waiting it out. */
function fakeSleep(): { waits: number[]; opts: PreflightOptions } {
  const waits: number[] = [];
  return { waits, opts: { sleep: async (ms) => void waits.push(ms), log: () => {} } };
}

const models = (res: ServerResponse, extra: Record<string, unknown> = {}) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model', ...extra }] }));
};
const okStream = (res: ServerResponse) => {
  sseHeaders(res);
  res.end(`${chunk('hi')}${chunk('!', 'length')}data: [DONE]\n\n`);
};

let server: TestServer | null = null;
let sim: SimServer | null = null;
afterEach(async () => {
  await server?.close();
  await sim?.close();
  server = null;
  sim = null;
});

/** A server whose answers to `path` are given in turn by `script`, then `ok` forever. */
async function scripted(path: string, script: Array<(res: ServerResponse) => void>, ok: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ hits: () => number }> {
  let hits = 0;
  server = await startTestServer((req, res) => {
    if (req.url?.startsWith(path) && hits < script.length) return script[hits++]!(res);
    if (req.url?.startsWith(path)) hits++;
    return ok(req, res);
  });
  return { hits: () => hits };
}
const normal = (req: IncomingMessage, res: ServerResponse) => (req.url === '/v1/models' ? models(res) : okStream(res));
const status = (code: number, headers: Record<string, string> = {}) => (res: ServerResponse) => {
  res.writeHead(code, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ error: { message: `status ${code}` } }));
};

describe('pre-flight retries transient faults within its bound', () => {
  it('a 503 on /v1/models twice (Retry-After: 2), then served: succeeds after waiting what the server asked', async () => {
    await scripted('/v1/models', [status(503, { 'retry-after': '2' }), status(503, { 'retry-after': '2' })], normal);
    const f = fakeSleep();
    const pf = await preflight(cfg(server!.url), f.opts);
    expect(pf.model).toBe('m');
    expect(f.waits).toEqual([2000, 2000]);
    expect(pf.retried).toHaveLength(2);
    expect(pf.retried[0]).toMatch(/HTTP 503/);
  });

  it('a single 429 or 500 on the probe request is retried with exponential backoff', async () => {
    const s = await scripted('/v1/completions', [status(429), status(500)], normal);
    const f = fakeSleep();
    const pf = await preflight(cfg(server!.url), f.opts);
    expect(pf.probe_ttft_ms).not.toBeNull();
    expect(s.hits()).toBe(3);
    expect(f.waits).toEqual([500, 1000]); // base 0.5 s, doubling
  });

  it('a probe that stalls once (no answer within the per-try timeout) is retried', async () => {
    await scripted('/v1/completions', [() => {}], normal);
    const f = fakeSleep();
    const pf = await preflight({ ...cfg(server!.url), timeoutMs: 2000 }, f.opts);
    expect(pf.retried).toEqual(['timeout']);
  });

  it('a fault that outlasts the bound fails in one line saying what each try saw', async () => {
    const always500 = Array.from({ length: 10 }, () => status(500));
    const s = await scripted('/v1/completions', always500, normal);
    const f = fakeSleep();
    const err = await preflight(cfg(server!.url), f.opts).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect(s.hits()).toBe(PREFLIGHT_RETRY.attempts);
    expect(f.waits).toEqual([500, 1000, 2000]);
    expect((err as Error).message).toMatch(/failed: HTTP 500: status 500 \(4 tries over 3\.5 s: HTTP 500; HTTP 500; HTTP 500; HTTP 500\)/);
    expect((err as Error).message).not.toContain('\n');
  });

  it('a Retry-After beyond the bound is capped, and the total wait never exceeds it', async () => {
    await scripted('/v1/completions', Array.from({ length: 10 }, () => status(429, { 'retry-after': '3600' })), normal);
    const f = fakeSleep();
    await expect(preflight(cfg(server!.url), f.opts)).rejects.toThrow(/HTTP 429/);
    expect(f.waits).toEqual([PREFLIGHT_RETRY.maxDelayMs]); // a second 10 s wait would pass the 15 s total
    expect(f.waits.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(PREFLIGHT_RETRY.totalWaitMs);
  });

  it('a 4xx is not transient: one try', async () => {
    const s = await scripted('/v1/completions', [status(400), status(400)], normal);
    const f = fakeSleep();
    await expect(preflight(cfg(server!.url), f.opts)).rejects.toThrow(/HTTP 400/);
    expect(s.hits()).toBe(1);
    expect(f.waits).toEqual([]);
  });
});

describe('pre-flight says what it received', () => {
  it('a 404 HTML page instead of a model list: status, content type and the first characters', async () => {
    server = await startTestServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<!DOCTYPE html><html><title>Not here</title></html>');
    });
    const err = await preflight(cfg(server.url, null), fakeSleep().opts).then(() => new Error("resolved"), (e: unknown) => e as Error);
    expect(err.message).toMatch(/lists no model \(it answered HTTP 404, text\/html: "<!DOCTYPE html><html><title>Not here<\/title><\/html>"\)/);
  });

  it('a 404 from the probe while /v1/models answers names --endpoint (the wrong path, not an unreachable server)', async () => {
    server = await startTestServer((req, res) => {
      if (req.url === '/v1/models') return models(res);
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ detail: 'Not Found' }));
    });
    const err = await preflight({ ...cfg(server.url), path: '/v1/chat/completion' }, fakeSleep().opts).then(() => new Error('resolved'), (e: unknown) => e as Error);
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toBe(`pre-flight request to ${server.url}/v1/chat/completion failed: HTTP 404: Not Found; the server does not serve --endpoint /v1/chat/completion: check --endpoint (e.g. /v1/chat/completions) and --base-url`);
  });

  it('an HTML login page with status 200: the same, and the probe is not_event_stream', async () => {
    server = await startTestServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<html><body>Sign in</body></html>');
    });
    const noModel = await preflight(cfg(server.url, null), fakeSleep().opts).then(() => new Error("resolved"), (e: unknown) => e as Error);
    expect(noModel.message).toMatch(/it answered HTTP 200, text\/html; charset=utf-8: "<html><body>Sign in/);
    const probe = await preflight(cfg(server.url, 'm'), fakeSleep().opts).then(() => new Error("resolved"), (e: unknown) => e as Error);
    expect(probe.message).toMatch(/HTTP 200 with content-type text\/html; charset=utf-8 instead of text\/event-stream: <html><body>Sign in/);
  });
});

describe('pre-flight reads the server’s limits and counting', () => {
  it('states max_model_len from /v1/models (vLLM’s field), also in the simulator’s fixed-delay mode', async () => {
    sim = await startSimServer({ timing: { kind: 'fixed', prefillMs: 1, perTokenMs: 1 }, modelName: 'm', maxModelLen: 4096 });
    expect((await preflight(cfg(sim.url), fakeSleep().opts)).max_model_len).toBe(4096);
  });

  it('calibrates with the simulator’s vLLM-shaped /tokenize when the server counts differently', async () => {
    // This server counts ⌈characters / 4⌉: ~1.4 tokens per synthetic word.
    sim = await startSimServer({ timing: { kind: 'fixed', prefillMs: 1, perTokenMs: 1 }, modelName: 'm', countTokens: (t) => Math.ceil(t.length / 4) });
    const pf = await preflight(cfg(sim.url), { ...fakeSleep().opts, calibrate: true });
    expect(pf.prompt_calibration?.source).toBe('tokenize');
    expect(pf.prompt_calibration!.tokens_per_estimated_token).toBeGreaterThan(1.2);
    expect(pf.prompt_calibration!.overhead_tokens).not.toBeNull();
  });

  it('without /tokenize, calibrates from two probes’ usage.prompt_tokens (the slope cancels the overhead)', async () => {
    // 2 tokens per estimated word plus a 7-token template.
    server = await startTestServer((req, res, body) => {
      if (req.url === '/v1/models') return models(res);
      if (req.url === '/tokenize') return status(404)(res);
      const words = (JSON.parse(body) as { prompt: string }).prompt.split(' ').length;
      sseHeaders(res);
      res.end(`${chunk('a', 'length')}data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 2 * words + 7, completion_tokens: 1 } })}\n\ndata: [DONE]\n\n`);
    });
    const pf = await preflight(cfg(server.url), { ...fakeSleep().opts, calibrate: true });
    expect(pf.prompt_calibration).toEqual({ source: 'usage', tokens_per_estimated_token: 2, overhead_tokens: 7 });
  });
});
