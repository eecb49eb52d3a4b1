/**
 * The workload through the real pipeline: CLI → runner → HTTP on 127.0.0.1 → simulator, with
 * records read back. Trace items must be sent at the trace's (scaled) times; a task mix's
 * per-task figures must add up to the run's.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/report/result-json.js';
import { expectCompleted, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const FIX = resolve('test/fixtures/workload');

function runDir(resultDir: string): string {
  // Run directories only: the results folder also holds the run history (history.duckdb).
  const dirs = readdirSync(resultDir, { withFileTypes: true }).filter((d) => d.isDirectory() && !d.name.startsWith('.')).map((d) => d.name);
  expect(dirs).toHaveLength(1);
  return join(resultDir, dirs[0]!);
}

interface Rec {
  id: number;
  task: string | null;
  scheduled_ms: number;
  sent_ms: number;
  status: string;
  prompt_tokens: number;
}

describe('workload end to end (simulator over HTTP)', () => {
  it('trace replay sends at the trace timestamps, time- and rate-scaled', async () => {
    const resultDir = tempDir('wl-trace');
    // time ×0.5, rate ×1.25 → gaps × 0.4: trace 0, 250, 500, 1200, 2000 ms → 0, 100, 200, 480, 800 ms
    const out = await runCli([
      'run',
      '--dataset-name', 'trace',
      '--dataset-path', join(FIX, 'mooncake-sample.jsonl'),
      '--trace-time-scale', '0.5',
      '--trace-rate-scale', '1.25',
      '--sim-prefill-ms', '5',
      '--sim-per-token-ms', '1',
      '--result-dir', resultDir,
      '--progress', 'none',
    ]);
    expect(out.stderr).toContain('skipped 1 malformed');
    // The load line says what the replay does, not the default --request-rate it ignores.
    expect(out.stderr).toContain("load: 5 requests, at the trace's timestamps, over 0.8 s (change with --trace-time-scale, --trace-rate-scale)");
    expectCompleted(out);
    const dir = runDir(resultDir);
    const recs = readFileSync(join(dir, 'records.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Rec)
      .sort((a, b) => a.scheduled_ms - b.scheduled_ms);
    expect(recs).toHaveLength(5);
    expect(recs.every((r) => r.status === 'ok')).toBe(true);
    const t0 = recs[0]!.scheduled_ms;
    const want = [0, 100, 200, 480, 800];
    recs.forEach((r, i) => {
      expect(r.scheduled_ms - t0).toBeCloseTo(want[i]!, 0);
      // Never before its time; how soon after is measured in test/timing/.
      expect(r.sent_ms).toBeGreaterThanOrEqual(r.scheduled_ms);
    });
    // Records hold the server's usage (the simulator counts its own way): the order must match.
    const p = recs.map((r) => r.prompt_tokens);
    expect([...p].sort((a, b) => a - b)).toEqual([p[4], p[2], p[0], p[1], p[3]]);
    const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as RunResult & { workload?: Record<string, unknown> };
    expect(JSON.stringify(result)).toContain('"expected_shared_token_fraction"');
  });

  it('a task mix labels every request and the per-task figures add up to the total', async () => {
    const resultDir = tempDir('wl-mix');
    const cfg = join(tempDir('wl-cfg'), 'run.json');
    writeFileSync(
      cfg,
      JSON.stringify({
        workload: {
          random_output_len: 4,
          tasks: [
            { name: 'chat', weight: 3, random_input_len: 32 },
            { name: 'rag', weight: 1, random_input_len: 256 },
            { name: 'qa', weight: 1, dataset_name: 'jsonl', dataset_path: join(FIX, 'chat.jsonl'), output_len: { kind: 'fixed', value: 4 } },
          ],
        },
      }),
    );
    const out = await runCli([
      'run',
      '--config', cfg,
      '--num-prompts', '40',
      '--request-rate', '200',
      '--sim-prefill-ms', '2',
      '--sim-per-token-ms', '1',
      '--result-dir', resultDir,
      '--progress', 'none',
    ]);
    expectCompleted(out);
    const dir = runDir(resultDir);
    const recs = readFileSync(join(dir, 'records.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Rec);
    expect(new Set(recs.map((r) => r.task))).toEqual(new Set(['chat', 'rag', 'qa']));
    const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as RunResult;
    const byTask = result.by_task!;
    const tasks = Object.values(byTask);
    expect(tasks.reduce((s, m) => s + m.requests.total, 0)).toBe(result.metrics.requests.total);
    expect(tasks.reduce((s, m) => s + m.tokens.output_total, 0)).toBe(result.metrics.tokens.output_total);
    const minRag = Math.min(...recs.filter((x) => x.task === 'rag').map((r) => r.prompt_tokens));
    const maxChat = Math.max(...recs.filter((x) => x.task === 'chat').map((r) => r.prompt_tokens));
    expect(minRag).toBeGreaterThan(maxChat); // 256 vs 32 tokens each, however the server counts
  });
});
