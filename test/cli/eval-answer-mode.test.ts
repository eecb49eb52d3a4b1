/**
 * `run --dataset-name eval` against the built-in simulator: the workload's checks become the
 * simulator's answer key, so the answers recorded are the suite's reference or wrong answers as
 * --sim-accuracy says (docs/quality.md §Simulator answer mode).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVAL_ITEMS } from '../../src/workload/datasets/eval/index.js';
import { expectCompleted, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

async function answers(accuracy: string): Promise<{ texts: string[]; result: { spec?: unknown; sim?: unknown; target?: unknown } }> {
  const dir = tempDir('eval-answers');
  const out = await runCli(['run', '--dataset-name', 'eval', '--num-prompts', '40', '--sim-prefill-ms', '0', '--sim-per-token-ms', '0', '--sim-accuracy', accuracy, '--keep-text', '--result-dir', dir, '--no-report', '--concurrency', '4']);
  expectCompleted(out);
  const runDir = join(dir, readdirSync(dir).find((d) => d.endsWith('-run'))!);
  const records = readFileSync(join(runDir, 'records.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { output_text: string; phase: string; finish_reason: string });
  const measured = records.filter((r) => r.phase === 'measure');
  expect(measured.length).toBe(40);
  expect(measured.every((r) => r.finish_reason === 'stop')).toBe(true);
  return { texts: measured.map((r) => r.output_text), result: JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8')) as Record<string, unknown> };
}

describe('run --dataset-name eval on the built-in simulator', () => {
  it('--sim-accuracy 1: every answer is a reference answer; 0: every answerable one is the wrong answer', async () => {
    const references = new Set(EVAL_ITEMS.map((i) => i.reference));
    const good = await answers('1');
    expect(good.texts.filter((t) => !references.has(t))).toEqual([]);
    // An unknowable's reference (its abstention) is unaffected by accuracy: only --sim-hallucination-rate changes it.
    const expectedBad = new Set(EVAL_ITEMS.map((i) => (i.check['answerable'] === false ? i.reference : i.wrong)));
    const bad = await answers('0');
    expect(bad.texts.filter((t) => !expectedBad.has(t))).toEqual([]);
    expect(JSON.stringify(bad.result)).toContain('"answer_mode":{"prompts":100,"accuracy":0');
  });

  it('a rate outside 0..1 is a usage error', async () => {
    const out = await runCli(['run', '--dataset-name', 'eval', '--num-prompts', '1', '--sim-json-error-rate', '1.5', '--no-save']);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/json.error.rate/);
  });
});
