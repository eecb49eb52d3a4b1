/**
 * Connections opened before the clock starts: the first requests reuse them (no connect in
 * their TTFT), over http and https, and a server that is not there costs nothing but a count.
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { emptyRecord } from '../../src/record/record.js';
import { preconnectCount } from '../../src/runner/load-job.js';
import { LoadSpecSchema } from '../../src/config/schema.js';
import { HttpTarget } from '../../src/client/http-client.js';
import { chunk, sseHeaders, startTestServer } from '../helpers/servers.js';

/** The server side sees an accept a moment after the client's connect: wait (bounded) for it. */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
}

const item = { prompt: 'hi', messages: null, prompt_tokens: 1, max_tokens: 1, task: null, expected: null, session: null, turn: null };
const target = (baseUrl: string) =>
  new HttpTarget({ baseUrl, path: '/v1/completions', model: 'm', apiKey: null, headers: {}, extraBody: {}, stream: true, ignoreEos: false, timeoutMs: 5000, keepText: false, insecureTls: true }, () => performance.now());

describe('HttpTarget.preconnect', () => {
  it('opens the connections up front and the requests reuse them', async () => {
    let connections = 0;
    const s = await startTestServer((_req, res) => {
      sseHeaders(res);
      res.end(chunk('a', 'stop') + 'data: [DONE]\n\n');
    });
    s.server.on('connection', () => connections++);
    const t = target(s.url);
    try {
      expect(await t.preconnect(4)).toBe(4);
      await until(() => connections === 4);
      expect(connections).toBe(4);
      const recs = await Promise.all([0, 1, 2, 3].map((i) => t.send(emptyRecord(i, 0), t.prepare(item))));
      for (const r of recs) expect(r.status).toBe('ok');
      expect(connections).toBe(4);
    } finally {
      t.close();
      await s.close();
    }
  });

  it('completes the TLS handshake before counting a connection', async () => {
    const fixture = (f: string) => readFileSync(new URL(`../fixtures/tls/${f}`, import.meta.url));
    let handshakes = 0;
    const server = createHttpsServer({ key: fixture('key.pem'), cert: fixture('cert.pem') }, (_req, res) => res.end());
    server.on('secureConnection', () => handshakes++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const t = target(`https://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      expect(await t.preconnect(3)).toBe(3);
      await until(() => handshakes === 3);
      expect(handshakes).toBe(3);
    } finally {
      t.close();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('counts nothing and throws nothing when the server is not there', async () => {
    const s = await startTestServer(() => {});
    const url = s.url;
    await s.close();
    const t = target(url);
    expect(await t.preconnect(3)).toBe(0);
    const rec = await t.send(emptyRecord(0, 0), t.prepare(item));
    expect(rec).toMatchObject({ status: 'error', error_class: 'connect' });
    t.close();
  });
});

describe('preconnectCount', () => {
  const load = (over: Record<string, unknown>) => LoadSpecSchema.parse(over);
  it('is --preconnect when given, else the concurrency cap, else about a second of arrivals (≤ 256)', () => {
    expect(preconnectCount(load({ preconnect: 7, concurrency: 50 }), 100)).toBe(7);
    expect(preconnectCount(load({ preconnect: 0 }), 100)).toBe(0);
    expect(preconnectCount(load({ concurrency: 50 }), 100)).toBe(50);
    expect(preconnectCount(load({ max_concurrency: 600, request_rate: 10 }), 1000)).toBe(600);
    // Never more than the run has requests: --concurrency 100000 --num-prompts 3 opens 3, not 100,000.
    expect(preconnectCount(load({ concurrency: 100_000 }), 3)).toBe(3);
    expect(preconnectCount(load({ max_concurrency: 600, request_rate: 10 }), 100)).toBe(100);
    expect(preconnectCount(load({ preconnect: 50 }), 3)).toBe(3);
    expect(preconnectCount(load({ concurrency: 100_000 }), null)).toBe(100_000); // by time: all may be used
    expect(preconnectCount(load({ request_rate: 10 }), 100)).toBe(10);
    expect(preconnectCount(load({ request_rate: 2.5 }), 100)).toBe(3);
    expect(preconnectCount(load({ request_rate: 5000 }), 100_000)).toBe(256);
    expect(preconnectCount(load({}), 40)).toBe(40); // all at once: every request needs one
    expect(preconnectCount(load({}), null)).toBe(256);
  });
});
