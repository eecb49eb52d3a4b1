/**
 * https endpoints (hosted APIs): the client's own transport over TLS. The certificate in
 * test/fixtures/tls is a self-signed test fixture for 127.0.0.1/localhost, nothing else.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyRecord } from '../../src/record/record.js';
import { HttpTarget } from '../../src/client/http-client.js';
import { expectCompleted, runCli } from '../helpers/cli.js';
import { chunk } from '../helpers/servers.js';

const fixture = (f: string) => readFileSync(new URL(`../fixtures/tls/${f}`, import.meta.url));

describe('https targets', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer({ key: fixture('key.pem'), cert: fixture('cert.pem') }, (req, res) => {
      if (req.url === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'secure-model', object: 'model' }] }));
        return;
      }
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`${chunk('a')}${chunk('b', 'stop')}data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2}}\n\ndata: [DONE]\n\n`);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const item = { prompt: 'hi', messages: null, prompt_tokens: 1, max_tokens: 2, task: null, expected: null, session: null, turn: null };
  const target = (insecureTls: boolean) =>
    new HttpTarget({ baseUrl: url, path: '/v1/completions', model: 'secure-model', apiKey: null, headers: {}, extraBody: {}, stream: true, ignoreEos: false, timeoutMs: 5000, keepText: false, insecureTls }, () => performance.now());

  it('streams over TLS, reusing the connection', async () => {
    const t = target(true);
    for (let i = 0; i < 3; i++) {
      const rec = await t.send(emptyRecord(i, 0), t.prepare(item));
      expect(rec).toMatchObject({ status: 'ok', output_tokens: 2, token_source: 'usage', http_status: 200 });
    }
    t.close();
  });

  it('refuses an unverifiable certificate unless --insecure', async () => {
    const t = target(false);
    const rec = await t.send(emptyRecord(0, 0), t.prepare(item));
    t.close();
    expect(rec).toMatchObject({ status: 'error', error_class: 'connect' });
    expect(rec.error_message).toMatch(/certificate/i);

    const refused = await runCli(['run', '--base-url', url, '--num-prompts', '1']);
    expect(refused.code).toBe(2);
    const ok = await runCli(['run', '--base-url', url, '--insecure', '--num-prompts', '4', '--no-save', '--json', '--progress', 'none', '--workers', '0']);
    expectCompleted(ok);
    expect(JSON.parse(ok.stdout).metrics.requests.ok).toBe(4);
  });
});
