/**
 * A sweep directory for report tests, written as docs/sweep-schema.md describes sweep.json:
 * three stages whose metrics are those of real `sim run`s at 5, 20 and 60 req/s, with a
 * saturation point and a knee, and markup in the model name and an SLO text.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunResult } from '../../src/report/result-json.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { observationOf } from '../../src/observe/observation.js';
import { recordToJsonLine } from '../../src/record/jsonl.js';
import { readRecordsFile } from '../../src/store/records-file.js';
import { serverScrapes } from './report-fixture.js';

export const SWEEP_INJECTED = `<script>window.__pwned = 'sweep'</script>`;

export async function makeSweepFixture(): Promise<string> {
  const root = tempDir('sweep-report');
  const rates = [5, 20, 60];
  const stages = [];
  const lines: string[] = [];
  for (const [i, rate] of rates.entries()) {
    const r = await runCli(['sim', 'run', '--request-rate', String(rate), '--num-prompts', '120', '--result-dir', join(root, 'runs'), '--name', `s${i}`, '--no-report', '--goodput', 'ttft:300', '--seed', String(i + 1)]);
    if (r.code !== 0) throw new Error(r.stderr);
    const dir = readdirSync(join(root, 'runs')).find((d) => d.endsWith(`-s${i}`))!;
    const result = JSON.parse(readFileSync(join(root, 'runs', dir, 'result.json'), 'utf8')) as RunResult;
    const { records } = readRecordsFile(join(root, 'runs', dir, 'records.jsonl'));
    for (const rec of records) lines.push(recordToJsonLine({ ...rec, stage: i }));
    // The server's side of each stage (hand-built scrapes: a queue in the middle of each).
    const endMs = Math.max(...records.map((x) => x.end_ms));
    const server = observationOf(serverScrapes(endMs), [{ url: 'http://127.0.0.1:8000/metrics', engines: ['vllm'], scrapes: 1, failed: 0, problem: null }], 'scrape', 1000, 0, endMs);
    stages.push({ server, index: i, role: 'list', load: { kind: 'rate', rate }, metrics: result.metrics, validity: null, slos: null, slos_pass: i < 2, stopped_early: i === 2 ? 'p99(ttft) could no longer be met' : null, records: 120, wall_s: 1 });
  }
  const dir = join(root, '20261130-140000-sweep');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'sweep.json'),
    JSON.stringify({
      schema: 'infermeter.sweep/1',
      infermeter_version: '0.1.0',
      sweep: { id: '20261130-140000-sweep', name: 'run', mode: 'list', driver: 'virtual', started_at: '2026-11-30T14:00:00.000Z', ended_at: '2026-11-30T14:00:10.000Z', interrupted: false },
      target: { base_url: null, endpoint: '/v1/completions', model: SWEEP_INJECTED, simulated: true },
      load: {},
      workload: {},
      slos: [`p99(ttft) <= 300ms ${SWEEP_INJECTED}`],
      stages,
      analysis: { order: [0, 1, 2], saturation: { index: 2, load: 60, reason: 'throughput stopped rising' }, knee: { index: 1, load: 20, reason: 'latency rose fastest', score: 2 }, degradation: null, params: {} },
      auto: null,
      search: null,
      pass: false,
    }),
  );
  writeFileSync(join(dir, 'records.jsonl'), `${lines.join('\n')}\n`);
  writeFileSync(join(dir, 'spec.json'), JSON.stringify({ load: { request_rates: rates } }));
  return dir;
}
