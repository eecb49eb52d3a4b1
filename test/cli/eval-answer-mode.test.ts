/**
 * `run --dataset-name eval` against the built-in simulator: the workload's checks become the
 * simulator's answer key, so the answers recorded are the suite's reference or wrong answers as
 * --sim-accuracy says (docs/quality.md §Simulator answer mode).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerKeyFrom } from '../../src/session/answer-key.js';
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
    expect(JSON.stringify(bad.result)).toContain(`"answer_mode":{"prompts":${EVAL_ITEMS.length},"accuracy":0`);
  });

  it('a rate outside 0..1 is a usage error', async () => {
    const out = await runCli(['run', '--dataset-name', 'eval', '--num-prompts', '1', '--sim-json-error-rate', '1.5', '--no-save']);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/json.error.rate/);
  });
});

describe('sim serve --answers', () => {
  it('eval: every suite prompt is in the key with its own answers; a JSONL file: its checked entries', async () => {
    const key = await answerKeyFrom('eval');
    expect(key.size).toBe(EVAL_ITEMS.length);
    const json = EVAL_ITEMS.find((i) => i.task === 'json_format')!;
    expect(key.get(json.prompt)).toMatchObject({ reference: json.reference, wrong: json.wrong, malformed: expect.any(String) });
    const unknowable = EVAL_ITEMS.find((i) => i.check['answerable'] === false)!;
    expect(key.get(unknowable.prompt)).toMatchObject({ unknowable: true, wrong: unknowable.wrong });
    const path = join(tempDir('serve-answers'), 'mine.jsonl');
    writeFileSync(path, [JSON.stringify({ prompt: 'What is 6 × 7?', expected: '42', check: 'numeric' }), JSON.stringify({ prompt: 'no check' })].join('\n'));
    const mine = await answerKeyFrom(path);
    expect(mine.size).toBe(1);
    // wrong = 42 + 2·0 (no tolerance) + max(1, 42 · 0.5) = 63
    expect(mine.get('What is 6 × 7?')).toEqual({ reference: '42', wrong: 'The answer is 63.' });
    writeFileSync(path, JSON.stringify({ prompt: 'no check' }));
    await expect(answerKeyFrom(path)).rejects.toThrow(/--answers .*: no entry has a check with a known answer/);
  });
});
