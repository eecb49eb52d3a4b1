/**
 * The server's side of a distributed run, over a real nats-server on 127.0.0.1: the coordinator
 * alone scrapes the server's /metrics around the whole run and times --cold-start (workers never
 * do, even when given the flags), and pre-flight's prompt calibration runs once, on the
 * coordinator, whose scale every worker sizes its prompts by. Ground truth: the simulator's own
 * counters and token counts, not timing.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../src/record/record.js';
import type { RunResult } from '../../src/report/result-json.js';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import { readRecordsFile } from '../../src/store/records-file.js';
import { runCli } from '../helpers/cli.js';
import { spawnCli } from '../helpers/cli-process.js';
import { startNats, type NatsServer } from '../helpers/nats.js';
import { startTestServer, type TestServer } from '../helpers/servers.js';
import { tempDir } from '../helpers/temp-dir.js';

let nats: NatsServer;
let sim: SimServer;
let decoy: TestServer;
let decoyHits = 0;
beforeAll(async () => {
  nats = await startNats();
  // This server counts ⌈characters / 4⌉ (its /tokenize says so): about 1.4 tokens per synthetic word.
  sim = await startSimServer({ timing: { kind: 'fixed', prefillMs: 1, perTokenMs: 2 }, modelName: 'm', countTokens: (t) => Math.ceil(t.length / 4) });
  // What the workers are told to scrape: a worker that scraped would be counted here.
  decoy = await startTestServer((_req, res) => {
    decoyHits++;
    res.writeHead(200, { 'content-type': 'text/plain' }).end('# nothing\n');
  });
});
afterAll(async () => {
  await decoy?.close();
  await sim?.close();
  await nats?.close();
});

const runDirOf = (resultDir: string) => join(resultDir, readdirSync(resultDir).filter((d) => !d.startsWith('history') && !d.startsWith('.'))[0]!);

describe('distributed run: the server side', () => {
  it('the coordinator scrapes /metrics around the whole run and times the cold start; prompts follow its calibration', async () => {
    const common = ['--base-url', sim.url, '--num-prompts', '20', '--request-rate', '40', '--random-input-len', '40', '--random-output-len', '4', '--seed', '9', '--ignore-eos', '--prompt-salt', 'fixed', '--progress', 'none'];
    const dir = tempDir('observed');
    const coordinator = runCli(['run', '--distributed', nats.url, '--workers-expected', '2', '--run-id', 'observed', '--start-delay', '1s', ...common, '--scrape-interval', '200ms', '--cold-start', '--result-dir', dir, '--json', '--allow-invalid']);
    const ws = [0, 1].map((i) => spawnCli(['worker', '--nats', nats.url, '--run-id', 'observed', '--index', String(i), '--wait', '60s', '--workers', '0', ...common, '--metrics-url', `${decoy.url}/metrics`, '--scrape-interval', '200ms', '--cold-start']));
    const out = await coordinator;
    expect(out.code, out.stderr).toBe(0);
    for (const w of ws) expect((await w.exited).code, w.stderr).toBe(0);
    const runDir = runDirOf(dir);
    const result = JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8')) as RunResult;
    const records = readRecordsFile(join(runDir, 'records.jsonl')).records;
    expect(records).toHaveLength(20);

    // Scraped by the coordinator before the start and after the last record: the counters' deltas are every token served.
    const server = result.server!;
    expect(server.sources[0]!.failed).toBe(0);
    expect(server.series.generation_tokens_per_s?.total).toBe(result.metrics.tokens.output_total);
    expect(server.series.prompt_tokens_per_s?.total).toBe(result.metrics.tokens.input_total);
    expect(server.series.ttft_s?.count).toBe(20);
    expect(existsSync(join(runDir, 'server-metrics.jsonl'))).toBe(true);
    expect(decoyHits).toBe(0);

    // The cold start: the health wait and the first response (pre-flight) on the coordinator.
    expect(result.cold_start).not.toBeNull();
    expect(result.cold_start!.polls).toBeGreaterThanOrEqual(1);
    expect(result.cold_start!.time_to_first_response_ms).not.toBeNull();
    expect(out.stderr).toMatch(/--cold-start: healthy after/);
    for (const w of ws) expect(w.stderr).not.toMatch(/--cold-start|pre-flight/);

    // Calibrated once, on the coordinator; the workers' prompts arrive at the length asked.
    const scale = (result.client.preflight as { prompt_calibration: { tokens_per_estimated_token: number } }).prompt_calibration.tokens_per_estimated_token;
    expect(scale).toBeGreaterThan(1.2);
    for (const r of records) {
      expect(r.prompt_tokens! / r.client_prompt_tokens!).toBeGreaterThan(0.85);
      expect(r.prompt_tokens! / r.client_prompt_tokens!).toBeLessThan(1.15);
    }
    // … exactly as one process sizes them: the same served prompt length for every request.
    const single = tempDir('observed-single');
    const one = await runCli(['run', ...common, '--workers', '1', '--no-metrics', '--result-dir', single, '--json', '--allow-invalid']);
    expect(one.code, one.stderr).toBe(0);
    const byId = (rs: RequestRecord[]) => rs.map((r) => [r.id, r.prompt_tokens]).sort((a, b) => a[0]! - b[0]!);
    expect(byId(records)).toEqual(byId(readRecordsFile(join(runDirOf(single), 'records.jsonl')).records));
  });
});
