/**
 * HTTP(S)_PROXY / NO_PROXY over real 127.0.0.1 sockets: a forward proxy (test/helpers/forward-proxy.ts)
 * between the client and a small OpenAI-compatible server, plain and over TLS (the test/fixtures/tls
 * self-signed certificate). What passed through the proxy is the ground truth.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpTarget, type TargetConfig } from '../../src/client/http-client.js';
import { emptyRecord } from '../../src/record/record.js';
import { DIRECT, proxySettingsFromEnv, type ProxySettings } from '../../src/util/proxy.js';
import { closedPort, startForwardProxy } from '../helpers/forward-proxy.js';
import { expectCompleted, runCli } from '../helpers/cli.js';
import { chunk, startTestServer, type TestServer } from '../helpers/servers.js';
import { tempDir } from '../helpers/temp-dir.js';

const fixture = (f: string) => readFileSync(new URL(`../fixtures/tls/${f}`, import.meta.url));
const STREAM = `${chunk('a')}${chunk('b', 'stop')}data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2}}\n\ndata: [DONE]\n\n`;
const item = { prompt: 'hi', messages: null, prompt_tokens: 1, max_tokens: 2, task: null, expected: null, session: null, turn: null };

function answer(req: { url?: string }, res: ServerResponse): void {
  if (req.url === '/v1/models') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model' }] }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(STREAM);
}

function target(baseUrl: string, proxy: ProxySettings, extra: Partial<TargetConfig> = {}): HttpTarget {
  return new HttpTarget({ baseUrl, path: '/v1/completions', model: 'm', apiKey: null, headers: {}, extraBody: {}, stream: true, ignoreEos: false, timeoutMs: 5000, keepText: false, insecureTls: true, proxy, ...extra }, () => performance.now());
}

const via = (url: string, noProxy = ''): ProxySettings => ({ http: url, https: url, noProxy });

/** Every file under a folder, as text. */
function filesUnder(dir: string): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push({ path: p, text: readFileSync(p, 'utf8') });
  }
  return out;
}

describe('requests through an HTTP proxy', () => {
  let plain: TestServer;
  let tlsServer: HttpsServer;
  let httpsUrl: string;
  beforeAll(async () => {
    plain = await startTestServer((req, res) => answer(req, res));
    tlsServer = createHttpsServer({ key: fixture('key.pem'), cert: fixture('cert.pem') }, (req, res) => {
      req.resume();
      req.on('end', () => answer(req, res));
    });
    await new Promise<void>((r) => tlsServer.listen(0, '127.0.0.1', r));
    httpsUrl = `https://127.0.0.1:${(tlsServer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await plain.close();
    await new Promise<void>((r) => tlsServer.close(() => r()));
  });

  it('sends http:// targets in absolute form on one keep-alive connection to the proxy', async () => {
    const proxy = await startForwardProxy();
    const t = target(plain.url, via(proxy.url));
    for (let i = 0; i < 3; i++) {
      const rec = await t.send(emptyRecord(i, 0), t.prepare(item));
      expect(rec).toMatchObject({ status: 'ok', output_tokens: 2, token_source: 'usage', http_status: 200 });
      expect(rec.chunk_ms.length).toBe(2);
    }
    t.close();
    await proxy.close();
    expect(proxy.seen).toEqual(Array(3).fill(`POST ${plain.url}/v1/completions`));
    expect(proxy.connections).toBe(1);
  });

  it('tunnels https:// targets with CONNECT, TLS to the server over the tunnel', async () => {
    const proxy = await startForwardProxy();
    const t = target(httpsUrl, via(proxy.url));
    for (let i = 0; i < 2; i++) {
      const rec = await t.send(emptyRecord(i, 0), t.prepare(item));
      expect(rec).toMatchObject({ status: 'ok', output_tokens: 2, http_status: 200 });
    }
    t.close();
    await proxy.close();
    // One tunnel, reused: the requests themselves are inside TLS, unseen by the proxy.
    expect(proxy.seen).toEqual([`CONNECT ${new URL(httpsUrl).host}`]);
  });

  it('goes direct for a host NO_PROXY names, and for DIRECT settings', async () => {
    const proxy = await startForwardProxy();
    for (const s of [via(proxy.url, '127.0.0.1'), via(proxy.url, `localhost, 127.0.0.1:${new URL(plain.url).port}`), DIRECT]) {
      const t = target(plain.url, s);
      expect((await t.send(emptyRecord(0, 0), t.prepare(item))).status).toBe('ok');
      t.close();
    }
    await proxy.close();
    expect(proxy.seen).toEqual([]);
  });

  it('a refused CONNECT is a classified record naming the proxy; the run goes on', async () => {
    const proxy = await startForwardProxy({ refuseConnect: 403 });
    const t = target(httpsUrl, via(proxy.url));
    const rec = await t.send(emptyRecord(0, 0), t.prepare(item));
    t.close();
    await proxy.close();
    expect(rec).toMatchObject({ status: 'error', error_class: 'connect', http_status: null });
    expect(rec.error_message).toContain(`the proxy ${proxy.url} refused CONNECT`);
    expect(rec.error_message).toContain('HTTP 403');
  });

  it('a proxy that is down: pre-flight exits 2 with one line naming the proxy, not the server', async () => {
    const port = await closedPort();
    for (const base of [plain.url, httpsUrl]) {
      const out = await runCli(['run', '--base-url', base, '--insecure', '--proxy', `127.0.0.1:${port}`, '--num-prompts', '2', '--no-save', '--progress', 'none', '--workers', '0']);
      expect(out.code).toBe(2);
      const last = out.stderr.trim().split('\n').at(-1)!;
      expect(last).toContain(`cannot reach the proxy http://127.0.0.1:${port} (ECONNREFUSED)`);
      expect(last).toContain(`for --base-url ${base}`);
    }
  });

  it('407: one line saying the proxy requires authentication, for http:// and https:// targets', async () => {
    const proxy = await startForwardProxy({ credentials: 'user:right-password' });
    for (const base of [plain.url, httpsUrl]) {
      const out = await runCli(['run', '--base-url', base, '--insecure', '--num-prompts', '2', '--no-save', '--progress', 'none', '--workers', '0'], { HTTPS_PROXY: `http://user:wrong-password@127.0.0.1:${proxy.port}`, HTTP_PROXY: `http://user:wrong-password@127.0.0.1:${proxy.port}` });
      expect(out.code).toBe(2);
      expect(out.stderr.trim().split('\n').at(-1)).toMatch(new RegExp(`^error: proxy ${proxy.url} requires authentication \\(--proxy / HTTPS_PROXY`));
      expect(out.stderr).not.toContain('wrong-password');
    }
    await proxy.close();
  });

  it('a whole run through an authenticating proxy: says so first, and no file or line holds its credentials', async () => {
    const secret = 'pr0xy-S3cret-pass';
    const proxy = await startForwardProxy({ credentials: `alice:${secret}` });
    const dir = tempDir('proxy-run');
    const env = { http_proxy: `http://alice:${secret}@127.0.0.1:${proxy.port}`, HTTP_PROXY: 'http://127.0.0.1:1' };
    const out = await runCli(['run', '--base-url', plain.url, '--num-prompts', '6', '--request-rate', 'inf', '--result-dir', dir, '--json', '--progress', 'none', '--workers', '1'], env);
    await proxy.close();
    expectCompleted(out);
    // Lowercase wins over HTTP_PROXY (port 1 would have failed), as curl.
    expect(out.stderr.split('\n')[0]).toBe(`target: ${plain.url} via proxy ${proxy.url} (HTTP(S)_PROXY or --proxy; --no-proxy or NO_PROXY to go direct)`);
    // Every request of the run (pre-flight, calibration, probes, the load, /metrics) went through it, with the credentials.
    expect(proxy.seen.filter((l) => l === `POST ${plain.url}/v1/completions`).length).toBeGreaterThanOrEqual(6);
    expect(proxy.seen.some((l) => l === `GET ${plain.url}/v1/models`)).toBe(true);
    expect(proxy.seen.some((l) => l === `GET ${plain.url}/metrics`)).toBe(true);
    expect(new Set(proxy.auths)).toEqual(new Set([`Basic ${Buffer.from(`alice:${secret}`).toString('base64')}`]));
    const b64 = Buffer.from(`alice:${secret}`).toString('base64');
    const files = filesUnder(dir);
    expect(files.map((f) => f.path).some((p) => p.endsWith('records.jsonl'))).toBe(true);
    for (const f of [...files, { path: 'stdout', text: out.stdout }, { path: 'stderr', text: out.stderr }]) {
      expect(f.text.includes(secret), f.path).toBe(false);
      expect(f.text.includes(b64), f.path).toBe(false);
    }
  });

  it('--no-proxy goes direct; the built-in simulator is never proxied', async () => {
    const proxy = await startForwardProxy();
    const env = { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url };
    const direct = await runCli(['run', '--base-url', plain.url, '--no-proxy', '--num-prompts', '2', '--no-save', '--json', '--progress', 'none', '--workers', '0'], env);
    expectCompleted(direct);
    expect(direct.stderr).not.toContain('via proxy');
    const sim = await runCli(['run', '--num-prompts', '4', '--no-save', '--json', '--progress', 'none', '--workers', '1'], env);
    expectCompleted(sim);
    await proxy.close();
    expect(proxy.seen).toEqual([]);
  });

  it('refuses a proxy it cannot speak, with one line', async () => {
    const out = await runCli(['run', '--base-url', plain.url, '--num-prompts', '1', '--no-save'], { HTTPS_PROXY: 'socks5://u:p@127.0.0.1:1080' });
    // An https proxy setting is checked even for an http:// target: a bad setting is refused whole.
    expect(out.code).toBe(2);
    expect(out.stderr.trim()).toBe('error: HTTPS_PROXY: socks5:// proxies are not supported (socks5://127.0.0.1:1080); give an http:// proxy');
    expect(() => proxySettingsFromEnv({}, 'http://[bad')).toThrow(/--proxy: not a proxy URL/);
  });
});
