/**
 * Wall time, measured: the capacity check of `infermeter run` as a process (the default test
 * project turns it off, vitest.config.ts): against a server on 127.0.0.1, a plan no machine's
 * client can drive is refused in one line naming --distributed and the worker machines, before
 * anything is sent; a plan far below capacity runs with --workers chosen and the figures in
 * result.json; --no-capacity-check skips it. The rates are a million req/s and 2 req/s, far on
 * either side of the ~40–1500 req/s one thread measured here (docs/distributed.md), so the
 * machine's noise cannot move the verdicts.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli-process.js';
import { chunk, sseHeaders, startTestServer } from '../helpers/servers.js';
import { tempDir } from '../helpers/temp-dir.js';

let server: Awaited<ReturnType<typeof startTestServer>>;
let posts = 0;
beforeAll(async () => {
  server = await startTestServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    posts++;
    sseHeaders(res);
    res.end(`${chunk('a')}${chunk('b', 'length')}data: [DONE]\n\n`);
  });
});
afterAll(async () => {
  await server?.close();
});

const ON = { INFERMETER_CAPACITY_CHECK: 'on' };
const base = () => ['run', '--base-url', server.url, '--no-preflight', '--model', 'm', '--random-input-len', '8', '--random-output-len', '2', '--progress', 'none'];

describe('run: the capacity check before t = 0', () => {
  it('refuses a plan beyond every core of this machine, in one line naming --distributed and the worker machines, before sending', async () => {
    const before = posts;
    const p = spawnCli([...base(), '--num-prompts', '100', '--request-rate', '1000000', '--no-save'], ON);
    const { code } = await p.exited;
    expect(code, p.stderr).toBe(2);
    const lines = p.stderr.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^error: capacity check: the plan needs 1000000 req\/s, and all \d+ workers of this machine can drive ~[\d.]+: run it with --distributed on \d+ worker machines like this one/);
    expect(lines.filter((l) => l.startsWith('error:'))).toHaveLength(1);
    expect(p.stderr).toMatch(/^this machine can drive ~[\d.]+ req\/s .* the plan needs 1000000 req\/s/m);
    expect(posts).toBe(before);
  });

  it('a plan within capacity: the line, --workers chosen, the figures in result.json', async () => {
    const dir = tempDir('capacity-run');
    // --allow-invalid: a machine too busy at that moment is said, not refused, and the run's verdict cannot fail the test.
    const p = spawnCli([...base(), '--num-prompts', '6', '--request-rate', '2', '--result-dir', dir, '--allow-invalid'], ON);
    const { code } = await p.exited;
    expect(code, p.stderr).toBe(0);
    expect(p.stderr).toMatch(/^this machine can drive ~[\d.]+ req\/s \(~[\d.]+ output tokens\/s\) of this shape \(2 output tokens, 16 streams per worker; .*\) with 1 worker; the plan needs 2\.0 req\/s \(~4\.0 output tokens\/s\), 1 worker$/m);
    const run = readdirSync(dir).find((d) => !d.startsWith('history') && !d.startsWith('.'))!;
    const result = JSON.parse(readFileSync(join(dir, run, 'result.json'), 'utf8')) as { client: { workers: number; capacity_check: Record<string, any> } }; // eslint-disable-line @typescript-eslint/no-explicit-any
    const c = result.client.capacity_check;
    expect(c.workers_needed).toBe(1);
    expect(c.workers).toBe(1);
    expect(result.client.workers).toBe(1);
    expect(c.need).toEqual({ requests_per_s: 2, output_tokens_per_s: 4 });
    expect(c.probe.requests_per_s).toBeGreaterThan(0);
    expect(c.probe.output_tokens_per_s).toBe(c.probe.requests_per_s * 2);
    expect(c.per_worker.requests_per_s).toBe(c.probe.requests_per_s / 2);
  });

  it('--no-capacity-check: no self-test, nothing in result.json', async () => {
    const dir = tempDir('capacity-off');
    const p = spawnCli([...base(), '--num-prompts', '4', '--request-rate', '1000000', '--no-capacity-check', '--result-dir', dir, '--allow-invalid'], ON);
    const { code } = await p.exited;
    expect(code, p.stderr).toBe(0);
    expect(p.stderr).not.toMatch(/capacity check/);
    const run = readdirSync(dir).find((d) => !d.startsWith('history') && !d.startsWith('.'))!;
    expect(JSON.parse(readFileSync(join(dir, run, 'result.json'), 'utf8')).client.capacity_check).toBeUndefined();
  });
});
