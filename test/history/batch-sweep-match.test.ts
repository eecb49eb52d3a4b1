/**
 * A batch-size sweep (sweep.dimension "batch_size") has one load for every stage: a single run of
 * its target and workload is not placed on it as on a load curve (history/sweep-match.ts), while a
 * load sweep of the same setup still is.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findMatchingSweep } from '../../src/history/sweep-match.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

type Obj = Record<string, unknown>;
const root = tempDir('batch-sweep-match');
afterAll(() => rmSync(root, { recursive: true, force: true }));

const COMMON = ['sim', 'sweep', '--endpoint-type', 'embeddings', '--num-prompts', '20', '--random-input-len', '32', '--seed', '3'];

async function sweepIn(results: string, args: string[]): Promise<{ dir: string; spec: Obj; id: string; model: string }> {
  const out = await runCli([...COMMON, '--result-dir', results, '--no-report', ...args]);
  expect(out.code, out.stderr).toBe(0);
  const dir = /Sweep directory: (.+)/.exec(out.stdout)![1]!.trim();
  const doc = JSON.parse(readFileSync(join(dir, 'sweep.json'), 'utf8')) as { sweep: { id: string }; target: { model: string } };
  return { dir, spec: JSON.parse(readFileSync(join(dir, 'spec.json'), 'utf8')) as Obj, id: doc.sweep.id, model: doc.target.model };
}

/** A sim run of the sweep's setup at `rate` (as sim run writes its result and spec.json). */
function simRun(s: { spec: Obj; model: string }, rate: number): { result: Obj; spec: Obj } {
  return {
    result: { run: { driver: 'virtual' }, target: { simulated: true, model: s.model }, load: { mode: 'open', request_rate: rate } },
    spec: { ...s.spec, target: { ...(s.spec.target as Obj), model: null }, load: { ...(s.spec.load as Obj), request_rate: rate, max_concurrency: null, num_prompts: 500 } },
  };
}

describe('the sweep of a run, with batch-size sweeps in the history', () => {
  it('a batch-size sweep is not a run\'s load curve; a load sweep of the same setup is', async () => {
    const results = join(root, 'results');
    const batch = await sweepIn(results, ['--batch-sizes', '1,4', '--max-concurrency', '2']);
    const run = simRun(batch, 5);
    expect(await findMatchingSweep(results, run.result, run.spec)).toBeNull();
    const load = await sweepIn(results, ['--request-rates', '2,8']);
    expect((await findMatchingSweep(results, run.result, run.spec))?.sweep).toBe(load.id);
  }, 60_000);
});
