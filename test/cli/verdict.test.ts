/**
 * Verdicts CI can gate on: a run in which no request succeeded, or too many failed, is
 * INVALID and exits 5 (EXIT_CODES.INVALID_RUN); --allow-invalid is the explicit escape hatch.
 * Real HTTP on 127.0.0.1; every assertion is on counts and exit codes, never on timing.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/errors/exit-codes.js';
import type { RunResult } from '../../src/report/result-json.js';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import { chunk, sseHeaders, startTestServer, type TestServer } from '../helpers/servers.js';
import { expectCompleted, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const LOAD = ['--num-prompts', '8', '--request-rate', '200', '--random-input-len', '8', '--random-output-len', '3', '--no-save', '--progress', 'none', '--workers', '0'];

function result(out: { stdout: string }): RunResult {
  return JSON.parse(out.stdout) as RunResult;
}

describe('a run in which every request failed is invalid (exit 5)', () => {
  let sim: SimServer;
  let servers: Record<string, TestServer>;
  beforeAll(async () => {
    sim = await startSimServer({ timing: { kind: 'fixed', prefillMs: 1, perTokenMs: 1 }, modelName: 'm' });
    servers = {
      unauthorized: await startTestServer((_q, res) => res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"invalid api key"}}')),
      html: await startTestServer((_q, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Please log in</body></html>')),
      overContext: await startTestServer((_q, res) =>
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"object":"error","message":"This model\'s maximum context length is 2048 tokens.","code":400}'),
      ),
    };
  });
  afterAll(async () => {
    await sim.close();
    for (const s of Object.values(servers)) await s.close();
  });

  it.each([
    ['404 (wrong endpoint)', () => ['--base-url', sim.url, '--endpoint', '/v1/nope'], 'http_4xx'],
    ['401', () => ['--base-url', servers.unauthorized!.url], 'http_4xx'],
    ['an HTML page', () => ['--base-url', servers.html!.url], null],
    ['prompts over the context (400)', () => ['--base-url', servers.overContext!.url], 'http_4xx'],
  ])('%s', async (_name, target, errorClass) => {
    const out = await runCli(['run', ...target(), '--no-preflight', '--model', 'm', ...LOAD, '--json']);
    expect(out.code, out.stderr).toBe(EXIT_CODES.INVALID_RUN);
    const r = result(out);
    expect(r.metrics.requests.ok).toBe(0);
    expect(r.validity!.valid).toBe(false);
    expect(r.validity!.failed_checks[0]).toBe('no_success');
    expect(r.validity!.reasons[0]).toMatch(/^no request succeeded: 8 of 8 failed \(/);
    if (errorClass) expect(r.validity!.reasons[0]).toContain(`${errorClass} 8`);
    expect(out.stderr).toMatch(/invalid run \(exit 5; --allow-invalid accepts it\): no request succeeded/);
  });

  it('a closed port with --no-preflight: every request fails to connect', async () => {
    const closed = await startSimServer({});
    const url = closed.url;
    await closed.close();
    const out = await runCli(['run', '--base-url', url, '--no-preflight', '--model', 'm', ...LOAD]);
    expect(out.code, out.stderr).toBe(EXIT_CODES.INVALID_RUN);
    expect(out.stdout).toMatch(/Run validity: INVALID —\n {2}- no request succeeded: 8 of 8 failed \(connect 8\)/);
    expect(out.stdout).toMatch(/Failure rate 100\.00% \(8 of 8\): errors 100\.00% \(connect 8\), timeouts 0\.00%, cancelled 0\.00%/);
  });

  it('--allow-invalid exits 0 and the verdict still says why', async () => {
    const out = await runCli(['run', '--base-url', sim.url, '--endpoint', '/v1/nope', '--no-preflight', '--model', 'm', ...LOAD, '--allow-invalid']);
    expect(out.code, out.stderr).toBe(EXIT_CODES.OK);
    expect(out.stdout).toContain('Run validity: INVALID');
    expect(out.stderr).toMatch(/invalid run \(accepted with --allow-invalid\)/);
  });
});

describe('--max-failure-rate', () => {
  let server: TestServer;
  let n = 0;
  beforeAll(async () => {
    // Every fourth request gets a 500: a failure rate of exactly 25% over 8 requests (2 of 8).
    server = await startTestServer((_q, res) => {
      if (n++ % 4 === 3) {
        res.writeHead(500).end('boom');
        return;
      }
      sseHeaders(res);
      res.end(`${chunk('a')}${chunk('b')}${chunk('c', 'stop')}data: [DONE]\n\n`);
    });
  });
  afterAll(() => server.close());

  it('above the default (5%): invalid, exit 5, the rate named', async () => {
    n = 0;
    const out = await runCli(['run', '--base-url', server.url, '--no-preflight', '--model', 'm', ...LOAD, '--json']);
    expect(out.code, out.stderr).toBe(EXIT_CODES.INVALID_RUN);
    const v = result(out).validity!;
    expect(v.failed_checks[0]).toBe('failure_rate');
    expect(v.reasons[0]).toMatch(/^failure rate 25\.00% > --max-failure-rate 5\.00%: 2 of 8 failed \(http_5xx 2\)/);
    expect(v.checks.failure_rate).toBe(0.25);
    expect(v.checks.max_failure_rate).toBe(0.05);
  });

  it('at or under a limit given as a percentage: valid as to requests, with a note', async () => {
    n = 0;
    const out = await runCli(['run', '--base-url', server.url, '--no-preflight', '--model', 'm', ...LOAD, '--max-failure-rate', '25%', '--json']);
    expectCompleted(out);
    const v = result(out).validity!;
    expect(v.failed_checks).not.toContain('failure_rate');
    expect(v.checks.max_failure_rate).toBe(0.25);
    expect(v.warnings[0]).toMatch(/^2 of 8 requests failed \(http_5xx 2\); the latencies describe the 6 that succeeded/);
  });

  it('a bad value is a usage error naming the flag', async () => {
    const out = await runCli(['run', '--max-failure-rate', '150%']);
    expect(out.code).toBe(EXIT_CODES.USAGE);
    expect(out.stderr).toMatch(/^error: --max-failure-rate: expected a fraction between 0 and 1/);
  });
});

describe('analyze applies the verdict to saved records', () => {
  it('exits 5 on a run with no success, 0 with --allow-invalid', async () => {
    const dir = tempDir('verdict');
    {
      const line = (id: number) => JSON.stringify({ id, status: 'error', error_class: 'http_5xx', http_status: 500, sent_ms: id, end_ms: id + 1, chunk_ms: [] });
      writeFileSync(join(dir, 'records.jsonl'), `${[0, 1, 2].map(line).join('\n')}\n`);
      const out = await runCli(['analyze', dir]);
      expect(out.code, out.stderr).toBe(EXIT_CODES.INVALID_RUN);
      expect(out.stdout).toMatch(/- no request succeeded: 3 of 3 failed \(http_5xx 3\)/);
      expect((await runCli(['analyze', dir, '--allow-invalid'])).code).toBe(EXIT_CODES.OK);
    }
  });
});
