/**
 * Distributed runs over a real nats-server (JetStream) on 127.0.0.1, with worker processes: the
 * union of 3 workers' requests is the single-process run's request set, and the coordinator's
 * figures are the single-process code path's over the merged records; a killed worker gives the
 * partial-result verdict naming it; a worker with another spec is refused; a restarted
 * coordinator resumes without duplicating records. Timings differ between any two real runs, so
 * "same figures" means: computed from the same records by the same code (`analyze`).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { arch, availableParallelism, hostname, release, type } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildResult } from '../../src/session/finish-run.js';
import type { RequestRecord } from '../../src/record/record.js';
import type { RunResult } from '../../src/report/result-json.js';
import { readRecordsFile } from '../../src/store/records-file.js';
import { chunk, sseHeaders, startTestServer } from '../helpers/servers.js';
import { expectCompleted, runCli } from '../helpers/cli.js';
import { spawnCli, type CliProcess } from '../helpers/cli-process.js';
import { startNats, type NatsServer } from '../helpers/nats.js';
import { tempDir } from '../helpers/temp-dir.js';

let nats: NatsServer;
beforeAll(async () => {
  nats = await startNats();
});
afterAll(async () => {
  await nats?.close();
});

/** The run's one directory under `resultDir`. */
function runDirOf(resultDir: string): string {
  const dirs = readdirSync(resultDir).filter((d) => !d.startsWith('history') && !d.startsWith('.'));
  expect(dirs).toHaveLength(1);
  return join(resultDir, dirs[0]!);
}

function load(dir: string): { records: RequestRecord[]; result: RunResult } {
  return { records: readRecordsFile(join(dir, 'records.jsonl')).records, result: JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as RunResult };
}

/** What a request is, apart from when it happened: id, phase, schedule, prompt and output length. */
const identity = (r: RequestRecord) => `${r.id}|${r.phase}|${r.scheduled_ms}|${r.client_prompt_tokens}|${r.requested_output_tokens}`;

function workers(args: string[], runId: string, count: number, extra: (i: number) => string[] = () => []): CliProcess[] {
  return Array.from({ length: count }, (_, i) => spawnCli(['worker', '--nats', nats.url, '--run-id', runId, '--index', String(i), '--wait', '60s', ...args, ...extra(i)]));
}

async function allExit(ps: CliProcess[]): Promise<Array<number | null>> {
  return Promise.all(ps.map(async (p) => (await p.exited).code));
}

const SIM = ['--sim-prefill-ms', '2', '--sim-per-token-ms', '3'];

describe('distributed run over NATS', () => {
  it('3 worker processes send exactly the single-process run’s requests; the figures are those of the merged records', async () => {
    const load_ = ['--num-prompts', '30', '--request-rate', '40', '--random-input-len', '16', '--random-output-len', '6', '--random-range-ratio', '0.5', '--seed', '21', '--warmup', '3', ...SIM, '--progress', 'none'];
    const dist = tempDir('dist');
    const coordinator = runCli(['run', '--distributed', nats.url, '--workers-expected', '3', '--run-id', 'same-set', '--start-delay', '1s', ...load_, '--result-dir', dist, '--json']);
    // One worker splits its share again over 2 load threads: the split composes.
    const ws = workers(load_, 'same-set', 3, (i) => ['--workers', i === 2 ? '2' : '0']);
    const out = await coordinator;
    expect(await allExit(ws)).toEqual([0, 0, 0]);
    expectCompleted(out);

    const single = tempDir('single');
    const one = await runCli(['run', ...load_, '--workers', '1', '--result-dir', single, '--json']);
    expectCompleted(one);

    const d = load(runDirOf(dist));
    const s = load(runDirOf(single));
    // The request set: every id once, each with the single run's phase, schedule, prompt and output length.
    expect(d.records).toHaveLength(30);
    expect(new Set(d.records.map((r) => r.id)).size).toBe(30);
    expect(d.records.map(identity).sort()).toEqual(s.records.map(identity).sort());
    // Request k came from worker k mod 3; the threads of worker 2 are shards 2 and 5 of 6.
    for (const r of d.records) {
      expect(r.node).toBe(r.id % 3);
      if (r.node === 2) expect(r.worker).toBe(r.id % 6);
      else expect(r.worker).toBe(r.node);
    }
    expect(s.records.every((r) => r.node === undefined)).toBe(true);

    // The coordinator's figures are the single-process code path's over the merged records…
    const again = buildResult({ spec: { goodput: [], output: { json: true, vllm_json: null } }, dir: null, records: d.records, run: d.result.run, target: d.result.target, load: d.result.load, workload: d.result.workload, health: null, client: {}, ignoreEos: true, clientTokenizer: 'estimate' });
    expect(again.metrics).toEqual(d.result.metrics);
    // … and `analyze` (one process, from records.jsonl) prints the same, to the last digit.
    const analyzed = await runCli(['analyze', runDirOf(dist), '--json']);
    expect((JSON.parse(analyzed.stdout) as RunResult).metrics).toEqual(d.result.metrics);
    expect(d.result.metrics.requests).toMatchObject({ ok: s.result.metrics.requests.ok, failed: 0 });

    const section = (d.result.client as { distributed: { workers: number; nodes: Array<{ node: number; status: string; records_received: number; clock_offset_ms: number; clock_rtt_ms: number }> } }).distributed;
    expect(section.workers).toBe(3);
    expect(section.nodes.map((n) => [n.node, n.status, n.records_received])).toEqual([
      [0, 'done', 10],
      [1, 'done', 10],
      [2, 'done', 10],
    ]);
    for (const n of section.nodes) {
      expect(Number.isFinite(n.clock_offset_ms)).toBe(true);
      expect(n.clock_rtt_ms).toBeGreaterThanOrEqual(0);
    }
    // Each worker's machine is in the environment beside the coordinator's (all this one here), as a run records its client host.
    const env = d.result.environment!;
    const thisHost = { cpu_cores: availableParallelism(), os: `${type()} ${release()} ${arch()}`, node_version: process.version, infermeter_version: s.result.environment!.client.infermeter_version };
    expect(env.client).toMatchObject(thisHost);
    expect(env.workers!.map((w) => [w.node, w.host])).toEqual([0, 1, 2].map((i) => [i, hostname()]));
    for (const w of env.workers!) expect(w.client).toEqual(s.result.environment!.client);
    // A run on one machine has no workers' list.
    expect(s.result.environment!.workers).toBeUndefined();
  });

  it('a worker with --metrics-port serves its own client metrics while it sends its share, and closes the page when it is done', async () => {
    // 12 requests at 6 req/s, each 6 tokens at 200 ms: the last answers stream ~1.2 s after the last send, so a scrape sees every send.
    const load_ = ['--num-prompts', '12', '--request-rate', '6', '--random-input-len', '16', '--random-output-len', '6', '--random-range-ratio', '0', '--seed', '3', '--sim-prefill-ms', '2', '--sim-per-token-ms', '200', '--progress', 'none'];
    const dist = tempDir('dist-metrics');
    const coordinator = runCli(['run', '--distributed', nats.url, '--workers-expected', '1', '--run-id', 'worker-metrics', '--start-delay', '1s', ...load_, '--result-dir', dist, '--json']);
    const [w] = workers(load_, 'worker-metrics', 1, () => ['--metrics-port', '127.0.0.1:0', '--workers', '1']);
    await w!.waitForStderr(/client metrics at (http:\/\/127\.0\.0\.1:\d+\/metrics)/);
    const url = /client metrics at (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(w!.stderr)![1]!;
    let ended = false;
    void w!.exited.then(() => (ended = true));
    // Scrape until the page shows all 12 sends (or the worker ends first, which fails below).
    let page = '';
    while (!ended && !/^infermeter_requests_sent 12$/m.test(page)) {
      page = await fetch(url).then((r) => r.text(), () => page);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(page).toMatch(/^infermeter_requests_sent 12$/m);
    expect(page).toContain('# TYPE infermeter_ttft_seconds histogram');
    const completed = [...page.matchAll(/^infermeter_requests_total\{[^}]*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
    expect(completed).toBeLessThanOrEqual(12);
    const out = await coordinator;
    expect((await w!.exited).code).toBe(0);
    expectCompleted(out);
    expect(load(runDirOf(dist)).records).toHaveLength(12);
    // Done: the page is gone with the worker.
    await expect(fetch(url)).rejects.toThrow();
  });

  it('the prompts the server receives from 3 workers are the single-process run’s prompts', async () => {
    const prompts: string[][] = [[], []];
    let which = 0;
    // A server that notes every prompt it is sent and answers with two tokens.
    const server = await startTestServer((req, res, body) => {
      if (req.method !== 'POST') {
        res.writeHead(404).end(`${req.method} ${req.url}`);
        return;
      }
      const b = JSON.parse(body) as { prompt: string; max_tokens: number };
      prompts[which]!.push(`${b.prompt}|${b.max_tokens}`);
      sseHeaders(res);
      res.end(`${chunk('a')}${chunk('b', 'length')}data: [DONE]\n\n`);
    });
    try {
      const load_ = ['--base-url', server.url, '--no-preflight', '--model', 'm', '--num-prompts', '24', '--request-rate', '60', '--random-input-len', '12', '--random-output-len', '4', '--random-range-ratio', '0.5', '--seed', '5', '--prompt-salt', 'fixed', '--progress', 'none'];
      const coordinator = runCli(['run', '--distributed', nats.url, '--workers-expected', '3', '--run-id', 'prompts', '--start-delay', '1s', ...load_, '--result-dir', tempDir('dist'), '--json', '--allow-invalid']);
      const ws = workers(load_, 'prompts', 3, () => ['--workers', '0']);
      expect((await coordinator).code).toBe(0);
      expect(await allExit(ws)).toEqual([0, 0, 0]);
      which = 1;
      expect((await runCli(['run', ...load_, '--workers', '1', '--result-dir', tempDir('single'), '--json', '--allow-invalid'])).code).toBe(0);
    } finally {
      await server.close();
    }
    expect(prompts[0]!).toHaveLength(24);
    expect(new Set(prompts[0]!).size).toBe(24);
    expect([...prompts[0]!].sort()).toEqual([...prompts[1]!].sort());
  });
});
