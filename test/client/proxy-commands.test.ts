/**
 * HTTP(S)_PROXY / --proxy in the commands util/proxy.ts is wired into besides `run`: a sweep's
 * stages and `--cold-start`'s health polls go through a forward proxy on 127.0.0.1
 * (test/helpers/forward-proxy.ts). Ground truth: the server counts every request it answers, the
 * proxy every one it forwarded — equal, so nothing went around the proxy.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/report/result-json.js';
import type { SweepResult } from '../../src/sweep/sweep-result.js';
import { startForwardProxy } from '../helpers/forward-proxy.js';
import { expectCompleted, runCli } from '../helpers/cli.js';
import { chunk, startTestServer, type TestServer } from '../helpers/servers.js';

const STREAM = `${chunk('a')}${chunk('b', 'stop')}data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2}}\n\ndata: [DONE]\n\n`;

let server: TestServer;
/** Requests the server answered, as "METHOD path". */
let hits: string[] = [];
beforeAll(async () => {
  server = await startTestServer((req: IncomingMessage, res: ServerResponse) => {
    hits.push(`${req.method} ${req.url}`);
    if (req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model' }] }));
      return;
    }
    if (req.url === '/health') {
      res.writeHead(200);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(STREAM);
  });
});
afterAll(async () => {
  await server.close();
});

const forwarded = (seen: string[], method: string, path: string) => seen.filter((l) => l === `${method} ${server.url}${path}`).length;

describe('sweep and --cold-start through a forward proxy', () => {
  it('sweep: every stage’s requests go through HTTP_PROXY, nothing around it', async () => {
    hits = [];
    const proxy = await startForwardProxy();
    const out = await runCli(['sweep', '--base-url', server.url, '--request-rates', '20,40', '--num-prompts', '5', '--random-input-len', '8', '--random-output-len', '2', '--no-save', '--json', '--progress', 'none', '--workers', '1', '--no-capacity-check', '--allow-invalid', '--no-metrics'], { HTTP_PROXY: proxy.url });
    await proxy.close();
    expectCompleted(out);
    expect(out.stderr.split('\n')).toContain(`target: ${server.url} via proxy ${proxy.url} (HTTP(S)_PROXY or --proxy; --no-proxy or NO_PROXY to go direct)`);
    const result = JSON.parse(out.stdout) as SweepResult;
    expect(result.stages.map((s) => s.metrics.requests.ok)).toEqual([5, 5]);
    // The server saw exactly what the proxy forwarded: the 10 stage requests and pre-flight's.
    expect(hits.length).toBe(proxy.seen.length);
    expect(proxy.seen.map((l) => l.replace(server.url, '')).sort()).toEqual([...hits].sort());
    expect(forwarded(proxy.seen, 'POST', '/v1/completions')).toBeGreaterThanOrEqual(10 + 1);
  });

  it('--cold-start: the health polls go through --proxy first, then pre-flight and the load', async () => {
    hits = [];
    const proxy = await startForwardProxy();
    const out = await runCli(['run', '--base-url', server.url, '--proxy', proxy.url, '--cold-start', '--num-prompts', '4', '--request-rate', 'inf', '--random-input-len', '8', '--random-output-len', '2', '--no-save', '--json', '--progress', 'none', '--workers', '0', '--no-metrics']);
    await proxy.close();
    expectCompleted(out);
    const result = JSON.parse(out.stdout) as RunResult;
    expect(result.cold_start).toMatchObject({ path: '/health', polls: 1 });
    expect(proxy.seen[0]).toBe(`GET ${server.url}/health`);
    expect(hits[0]).toBe('GET /health');
    expect(hits.length).toBe(proxy.seen.length);
    expect(forwarded(proxy.seen, 'POST', '/v1/completions')).toBeGreaterThanOrEqual(4 + 1);
  });
});
