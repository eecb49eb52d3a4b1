/**
 * Results that outlive the coordinator's pod, over a real nats-server: a coordinator process run
 * with --store-results (as the manifests' coordinator is) and two worker processes end a run
 * whose SLO fails (exit 3); its run directory is then deleted (the pod is gone), `k8s fetch`
 * brings it back from the JetStream object store, and `analyze` of the fetched directory gives
 * result.json's figures. The same coordinator started again (a retried pod) reports the finished
 * run and exits with its verdict instead of waiting for workers that are gone. Bad input to
 * fetch is one line, exit 2.
 */
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/report/result-json.js';
import { runCli } from '../helpers/cli.js';
import { spawnCli } from '../helpers/cli-process.js';
import { startNats, type NatsServer } from '../helpers/nats.js';
import { tempDir } from '../helpers/temp-dir.js';

let nats: NatsServer;
beforeAll(async () => {
  nats = await startNats();
});
afterAll(async () => {
  await nats?.close();
});

const LOAD = ['--num-prompts', '12', '--request-rate', '30', '--random-input-len', '8', '--random-output-len', '4', '--seed', '3', '--sim-prefill-ms', '2', '--sim-per-token-ms', '3', '--progress', 'none'];
// An SLO no server meets: the verdict is exit 3; --allow-invalid keeps a busy machine's lag from making it 5.
const VERDICT = ['--slo', 'p50(ttft) < 0.001ms', '--allow-invalid'];

describe('run --distributed --store-results and k8s fetch', () => {
  it('the run directory survives the pod: fetched from NATS it is a run directory analyze reads; a restarted coordinator reports the finished run without waiting', async () => {
    const resultDir = tempDir('stored');
    const coordinatorArgs = ['run', '--distributed', nats.url, '--workers-expected', '2', '--run-id', 'kept', '--start-delay', '1s', '--worker-wait', '60s', ...LOAD, ...VERDICT, '--result-dir', resultDir, '--store-results'];
    const coordinator = spawnCli(coordinatorArgs);
    const workers = [0, 1].map((i) => spawnCli(['worker', '--nats', nats.url, '--run-id', 'kept', '--index', String(i), '--wait', '60s', ...LOAD, ...VERDICT, '--workers', '0']));
    const done = await coordinator.exited;
    expect((await Promise.all(workers.map((w) => w.exited))).map((e) => e.code)).toEqual([0, 0]);
    expect(done.code, coordinator.stderr).toBe(3);
    expect(coordinator.stderr).toMatch(/results stored on NATS \(\d+ files, \d+ bytes\): infermeter k8s fetch kept --nats-url nats:\/\/127\.0\.0\.1:\d+ --out DIR/);

    const [name] = readdirSync(resultDir).filter((d) => !d.startsWith('history') && !d.startsWith('.'));
    const original = join(resultDir, name!);
    const files = readdirSync(original).sort();
    expect(files).toEqual(expect.arrayContaining(['records.jsonl', 'result.json', 'spec.json']));
    const before = Object.fromEntries(files.map((f) => [f, readFileSync(join(original, f))]));
    // The pod is gone, and its emptyDir with it.
    rmSync(resultDir, { recursive: true, force: true });

    const out = join(tempDir('fetched'), 'kept');
    const fetched = await runCli(['k8s', 'fetch', 'kept', '--nats-url', nats.url, '--out', out]);
    expect(fetched.code, fetched.stderr).toBe(0);
    expect(fetched.stderr).toMatch(new RegExp(`^fetched run kept \\(${files.length} files, \\d+ bytes; finished .+, exit 3\\) into ${out}`));
    // The same files, byte for byte.
    expect(readdirSync(out).sort()).toEqual(files);
    for (const f of files) expect(readFileSync(join(out, f)).equals(before[f]!), f).toBe(true);
    // A normal run directory: analyze recomputes result.json's figures from its records.
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as RunResult;
    expect(result.metrics.requests.ok).toBe(12);
    const analyzed = await runCli(['analyze', out, '--json']);
    expect((JSON.parse(analyzed.stdout) as RunResult).metrics).toEqual(result.metrics);

    // The coordinator's pod retried (exit 1 or 137 after the end): no worker will come again.
    const t0 = Date.now();
    const again = spawnCli(coordinatorArgs);
    const second = await again.exited;
    expect(second.code, again.stderr).toBe(3);
    expect(again.stderr).toMatch(/run kept finished already at .+ \(exit 3\): nothing is sent again; its results: infermeter k8s fetch kept/);
    expect(again.stderr).not.toMatch(/waiting for 2 workers/);
    // Well inside its --worker-wait (60 s): it never waited for workers.
    expect(Date.now() - t0).toBeLessThan(45_000);
  });

  it('sweep --distributed --store-results: the sweep directory is fetched back as one analyze reads; a restarted coordinator reports the finished sweep', async () => {
    const resultDir = tempDir('stored-sweep');
    const SWEEP = ['--num-prompts', '6', '--random-input-len', '8', '--random-output-len', '4', '--seed', '3', '--sim-prefill-ms', '2', '--sim-per-token-ms', '3', '--progress', 'none', ...VERDICT];
    const coordinatorArgs = ['sweep', '--distributed', nats.url, '--workers-expected', '1', '--run-id', 'kept-sweep', '--start-delay', '1s', '--worker-wait', '60s', '--request-rates', '20,40', ...SWEEP, '--result-dir', resultDir, '--store-results'];
    const coordinator = spawnCli(coordinatorArgs);
    const worker = spawnCli(['worker', '--nats', nats.url, '--run-id', 'kept-sweep', '--index', '0', '--wait', '60s', ...SWEEP, '--workers', '0']);
    const done = await coordinator.exited;
    expect((await worker.exited).code, worker.stderr).toBe(0);
    expect(done.code, coordinator.stderr).toBe(3);
    expect(coordinator.stderr).toMatch(/results stored on NATS \(\d+ files, \d+ bytes\): infermeter k8s fetch kept-sweep --nats-url nats:\/\/127\.0\.0\.1:\d+ --out DIR/);
    const [name] = readdirSync(resultDir).filter((d) => !d.startsWith('history') && !d.startsWith('.'));
    const original = join(resultDir, name!);
    const files = readdirSync(original).sort();
    expect(files).toEqual(expect.arrayContaining(['records.jsonl', 'sweep.json', 'spec.json']));
    const before = Object.fromEntries(files.map((f) => [f, readFileSync(join(original, f))]));
    rmSync(resultDir, { recursive: true, force: true });

    const out = join(tempDir('fetched-sweep'), 'kept-sweep');
    const fetched = await runCli(['k8s', 'fetch', 'kept-sweep', '--nats-url', nats.url, '--out', out]);
    expect(fetched.code, fetched.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(files);
    for (const f of files) expect(readFileSync(join(out, f)).equals(before[f]!), f).toBe(true);
    // A sweep directory analyze re-judges stage by stage.
    const analyzed = await runCli(['analyze', out, ...VERDICT]);
    expect(analyzed.stdout, analyzed.stderr).toMatch(/stage/);

    // A retried coordinator pod: no worker comes again; the stored verdict is its exit code.
    const again = spawnCli(coordinatorArgs);
    const second = await again.exited;
    expect(second.code, again.stderr).toBe(3);
    expect(again.stderr).toMatch(/sweep kept-sweep finished already at .+ \(exit 3\): nothing is sent again; its results: infermeter k8s fetch kept-sweep/);
    expect(again.stderr).not.toMatch(/waiting for 1 workers/);
  });

  it('fetch: an unknown run id, an unreachable NATS, a bad id, an --out in use; --store-results without --distributed: one line, exit 2', async () => {
    const used = tempDir('used');
    writeFileSync(join(used, 'x'), 'x');
    const cases: Array<[string[], RegExp]> = [
      [['k8s', 'fetch', 'never-ran', '--nats-url', nats.url, '--out', join(tempDir('f'), 'o')], /^error: run id never-ran: no stored results on NATS \(bucket infermeter-results-never-ran does not exist\)/],
      [['k8s', 'fetch', 'x', '--nats-url', 'nats://127.0.0.1:1', '--wait', '1s', '--out', join(tempDir('f'), 'o')], /^error: --nats-url nats:\/\/127\.0\.0\.1:1: cannot connect to NATS/],
      [['k8s', 'fetch', 'bad id', '--nats-url', nats.url, '--out', join(tempDir('f'), 'o')], /^error: run id: "bad id" must be 1–64 letters/],
      [['k8s', 'fetch', 'x', '--nats-url', 'http://nats:4222', '--out', join(tempDir('f'), 'o')], /^error: --nats-url: expected nats:\/\/HOST:PORT/],
      [['run', '--num-prompts', '5', '--store-results'], /^error: --store-results: only with --distributed/],
      // The run of the test above is stored; a directory with files in it is not overwritten.
      [['k8s', 'fetch', 'kept', '--nats-url', nats.url, '--out', used], /^error: --out .+: exists and is not an empty directory/],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(args);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});
