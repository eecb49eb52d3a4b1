/**
 * Which runs are comparable, end to end over real HTTP: two runs of one command against a server
 * (each with its own fresh prompt salt) share one history spec hash, so `trend` follows them and
 * fires on a regression; invalid runs are refused by `compare` and `trend`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/errors/exit-codes.js';
import { startSimServer, type SimServer, type SimServerOptions } from '../../src/sim/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

// Closed loop: no send schedule the busy test machine could make the client miss (a validity finding).
const LOAD = ['--num-prompts', '20', '--concurrency', '2', '--random-input-len', '32', '--random-output-len', '8', '--progress', 'none'];
const servers: SimServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function serve(o: SimServerOptions): Promise<SimServer> {
  const s = await startSimServer({ modelName: 'served-model', ...o });
  servers.push(s);
  return s;
}

async function run(url: string, results: string, name: string, extra: string[] = []): Promise<{ dir: string; code: number; stderr: string }> {
  const out = await runCli(['run', '--base-url', url, ...LOAD, '--result-dir', results, '--name', name, ...extra]);
  const dir = /Run directory: (.+)/.exec(out.stdout)?.[1]?.trim();
  expect(dir, out.stderr).toBeDefined();
  return { dir: dir!, code: out.code, stderr: out.stderr };
}

const salt = (dir: string): unknown => (JSON.parse(readFileSync(join(dir, 'spec.json'), 'utf8')) as { workload: { prompt_salt: unknown } }).workload.prompt_salt;

describe('identical runs against a real server', () => {
  // A busy test machine can make the client's event loop late, a validity finding about the client
  // that this test is not about: runs and trends here accept invalid runs (--allow-invalid).
  it('get one spec hash although each has a fresh prompt salt; trend fires on a slower server at the same URL', async () => {
    const results = tempDir('comparable-real');
    const fast = await serve({ timing: { kind: 'fixed', prefillMs: 5, perTokenMs: 1 } });
    const a = await run(fast.url, results, 'a', ['--allow-invalid']);
    const b = await run(fast.url, results, 'b', ['--allow-invalid']);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(salt(a.dir)).toMatch(/^[0-9a-f]{8}$/);
    expect(salt(b.dir)).not.toBe(salt(a.dir));
    const rows = JSON.parse((await runCli(['history', '--results-dir', results, '--json'])).stdout) as Array<{ spec_hash: string }>;
    expect(rows).toHaveLength(2);
    expect(rows[0]!.spec_hash).toBe(rows[1]!.spec_hash);
    // Both are in one trend, both judged (their wall-clock TTFTs are not compared here: noise).
    const two = JSON.parse((await runCli(['trend', 'ttft_p99', '--results-dir', results, '--json', '--allow-invalid'])).stdout) as { points: Array<{ comparable: boolean }>; comparable_runs: number };
    expect(two.points.map((p) => p.comparable)).toEqual([true, true]);
    expect(two.comparable_runs).toBe(2);

    // The same URL, now served 80× slower to the first token: a planted regression.
    const port = new URL(fast.url).port;
    await fast.close();
    servers.splice(servers.indexOf(fast), 1);
    const slow = await serve({ port: Number(port), timing: { kind: 'fixed', prefillMs: 400, perTokenMs: 1 } });
    expect(slow.url).toBe(fast.url);
    expect((await run(slow.url, results, 'c', ['--allow-invalid'])).code).toBe(0);
    const t = await runCli(['trend', 'ttft_p99', '--results-dir', results, '--fail-on-regression', '--allow-invalid']);
    expect(t.code, t.stdout + t.stderr).toBe(EXIT_CODES.REGRESSION);
    expect(t.stdout).toMatch(/over 3 runs of spec/);
    expect(t.stdout).toMatch(/REGRESSION: ttft_p99_ms .* in \S+-c against \S+-b/);
  });
});

describe('invalid runs', () => {
  it('compare refuses two invalid runs and trend gives no "No regression" for them, unless --allow-invalid', async () => {
    const results = tempDir('comparable-invalid');
    const broken = await serve({ timing: { kind: 'fixed', prefillMs: 2, perTokenMs: 1 }, faults: { http500Rate: 1 } });
    const a = await run(broken.url, results, 'a', ['--allow-invalid', '--no-preflight', '--model', 'served-model']);
    const b = await run(broken.url, results, 'b', ['--allow-invalid', '--no-preflight', '--model', 'served-model']);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(a.stderr).toMatch(/invalid run/);

    const c = await runCli(['compare', a.dir, b.dir, '--fail-on-regression', '5%']);
    expect(c.code).toBe(EXIT_CODES.INVALID_RUN);
    expect(c.stdout).toBe('');
    const lines = c.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(`compare: ${a.dir} is an invalid run (no request succeeded: 20 of 20 failed (http_5xx 20)); --allow-invalid compares it anyway`);
    const allowed = await runCli(['compare', a.dir, b.dir, '--allow-invalid']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toMatch(/== compare: A = /);

    const t = await runCli(['trend', 'failure_rate', '--results-dir', results, '--fail-on-regression']);
    expect(t.code).toBe(EXIT_CODES.INVALID_RUN);
    expect(t.stdout).not.toMatch(/No regression/);
    expect(t.stderr).toMatch(/^trend: the newest run \S+-b is invalid \(no request succeeded.*\); --allow-invalid judges it anyway$/m);
  });
});
