/**
 * Which sweep a single run's report draws (history/sweep-match.ts): the newest sweep in the
 * history whose target and workload are the run's, whatever the load; none when the model or
 * the dataset differ. One real sweep (virtual time) in the history; the runs are its own spec
 * with one setting changed.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findMatchingSweep } from '../../src/history/sweep-match.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const root = tempDir('sweep-match');
const results = join(root, 'results');
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Obj = Record<string, unknown>;
let sweepDir: string;
let spec: Obj;
let sweep: { sweep: { id: string }; target: { model: string }; stages: Array<{ metrics: { latency: { ttft_ms: { p99: number } } } }> };

beforeAll(async () => {
  const out = await runCli(['sim', 'sweep', '--request-rates', '2,8', '--num-prompts', '20', '--random-input-len', '128', '--random-output-len', '16', '--seed', '3', '--result-dir', results]);
  expect(out.code, out.stderr).toBe(0);
  sweepDir = /Sweep directory: (.+)/.exec(out.stdout)![1]!.trim();
  spec = JSON.parse(readFileSync(join(sweepDir, 'spec.json'), 'utf8')) as Obj;
  sweep = JSON.parse(readFileSync(join(sweepDir, 'sweep.json'), 'utf8')) as typeof sweep;
}, 60_000);

/** A sim run's result and spec.json: the sweep's setup at `rate`, its spec's model left to the simulator (as `sim run` writes it). */
function simRun(rate: number, change: { model?: string; workload?: Obj } = {}): { result: Obj; spec: Obj } {
  const target = { ...(spec.target as Obj), model: null };
  return {
    result: { run: { driver: 'virtual' }, target: { simulated: true, model: change.model ?? sweep.target.model }, load: { mode: 'open', request_rate: rate } },
    spec: { ...spec, target, workload: change.workload ?? spec.workload, load: { ...(spec.load as Obj), request_rate: rate, num_prompts: 500 } },
  };
}

describe('the sweep of a run', () => {
  it('same target and workload at another load: the sweep, its stages and their p99s', async () => {
    const run = simRun(5);
    const found = await findMatchingSweep(results, run.result, run.spec);
    expect(found?.sweep).toBe(sweep.sweep.id);
    expect(found?.dir).toBe(sweepDir);
    expect(found?.stages.map((s) => [s.stage, s.kind, s.load])).toEqual([[0, 'rate', 2], [1, 'rate', 8]]);
    expect(found?.stages.map((s) => s.ttft_p99_ms)).toEqual(sweep.stages.map((s) => s.metrics.latency.ttft_ms.p99));
  });

  it('another model, or another dataset: no sweep', async () => {
    const model = simRun(5, { model: 'qwen-2.5-7b' });
    expect(await findMatchingSweep(results, model.result, model.spec)).toBeNull();
    const dataset = simRun(5, { workload: { ...(spec.workload as Obj), dataset_name: 'sharegpt', dataset_path: 'sharegpt.json' } });
    expect(await findMatchingSweep(results, dataset.result, dataset.spec)).toBeNull();
  });

  it('read from the journal (a sweep that just finished) and, once folded in, from history.duckdb: the same sweep', async () => {
    const run = simRun(5);
    expect(existsSync(join(results, 'history.duckdb'))).toBe(false);
    const fromJournal = await findMatchingSweep(results, run.result, run.spec);
    // Reading for a report never writes the history: the journal is still there, no database made.
    expect(existsSync(join(results, 'history.duckdb'))).toBe(false);
    const list = await runCli(['history', '--results-dir', results, '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(existsSync(join(results, 'history.duckdb'))).toBe(true);
    const fromFile = await findMatchingSweep(results, run.result, run.spec);
    expect(fromFile?.stages).toEqual(fromJournal?.stages);
    expect(fromFile?.sweep).toBe(sweep.sweep.id);
  }, 60_000);

  it('a results folder without a history: nothing is opened, no sweep', async () => {
    const run = simRun(5);
    expect(await findMatchingSweep(join(root, 'empty'), run.result, run.spec)).toBeNull();
  });
});
