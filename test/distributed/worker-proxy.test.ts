/**
 * A distributed worker honours its own host's proxy settings (`--proxy`, HTTP_PROXY) for the
 * server, over a real nats-server on 127.0.0.1 with worker processes: worker 0 is given
 * `--proxy`, worker 1 HTTP_PROXY in its environment, the coordinator neither. Ground truth:
 * each proxy forwarded exactly its worker's share (records carry their node), and the server
 * answered nothing else but the coordinator's direct pre-flight.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRecordsFile } from '../../src/store/records-file.js';
import { startForwardProxy } from '../helpers/forward-proxy.js';
import { runCli } from '../helpers/cli.js';
import { spawnCli } from '../helpers/cli-process.js';
import { startNats, type NatsServer } from '../helpers/nats.js';
import { chunk, startTestServer, type TestServer } from '../helpers/servers.js';
import { tempDir } from '../helpers/temp-dir.js';

const STREAM = `${chunk('a')}${chunk('b', 'stop')}data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2}}\n\ndata: [DONE]\n\n`;

let nats: NatsServer;
let server: TestServer;
const hits: string[] = [];
beforeAll(async () => {
  nats = await startNats();
  server = await startTestServer((req: IncomingMessage, res: ServerResponse) => {
    hits.push(`${req.method} ${req.url}`);
    if (req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model' }] }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(STREAM);
  });
});
afterAll(async () => {
  await server?.close();
  await nats?.close();
});

describe('distributed worker through a proxy', () => {
  it('worker --proxy and worker HTTP_PROXY: each proxy forwards exactly that worker’s requests', async () => {
    const a = await startForwardProxy();
    const b = await startForwardProxy();
    const common = ['--base-url', server.url, '--num-prompts', '12', '--request-rate', '40', '--random-input-len', '8', '--random-output-len', '2', '--seed', '5', '--progress', 'none', '--no-metrics'];
    const dir = tempDir('worker-proxy');
    const coordinator = runCli(['run', '--distributed', nats.url, '--workers-expected', '2', '--run-id', 'via-proxy', '--start-delay', '1s', ...common, '--result-dir', dir, '--json', '--allow-invalid']);
    const worker = (i: number, extra: string[], env: NodeJS.ProcessEnv) => spawnCli(['worker', '--nats', nats.url, '--run-id', 'via-proxy', '--index', String(i), '--wait', '60s', '--workers', '0', ...common, ...extra], { HTTP_PROXY: '', HTTPS_PROXY: '', http_proxy: '', https_proxy: '', ...env });
    const ws = [worker(0, ['--proxy', a.url], {}), worker(1, [], { HTTP_PROXY: b.url })];
    const out = await coordinator;
    const exits = await Promise.all(ws.map((w) => w.exited));
    await a.close();
    await b.close();
    expect(out.code, out.stderr).toBe(0);
    for (const [i, e] of exits.entries()) expect(e.code, ws[i]!.stderr).toBe(0);
    const runDir = join(dir, readdirSync(dir).find((d) => !d.startsWith('history') && !d.startsWith('.'))!);
    const records = readRecordsFile(join(runDir, 'records.jsonl')).records;
    expect(records).toHaveLength(12);
    const posts = (seen: string[]) => seen.filter((l) => l === `POST ${server.url}/v1/completions`).length;
    expect(posts(a.seen)).toBe(records.filter((r) => r.node === 0).length);
    expect(posts(b.seen)).toBe(records.filter((r) => r.node === 1).length);
    expect(posts(a.seen)).toBeGreaterThan(0);
    expect(posts(b.seen)).toBeGreaterThan(0);
    // The coordinator (no proxy given) went direct: the server answered the workers' 12 through the proxies and only its own besides.
    const direct = hits.length - a.seen.length - b.seen.length;
    expect(direct).toBeGreaterThan(0);
    expect(out.stderr).not.toContain('via proxy');
    for (const w of ws) expect(w.stderr).not.toMatch(/cannot reach|proxy .* requires/);
  }, 120_000);
});
