/**
 * The built-in eval suite pinned by an oracle: every item's reference answer passes its own check
 * and its deliberately wrong answer fails it, so a broken item (or a check that drifted) shows.
 */
import { describe, expect, it } from 'vitest';
import { evaluateCheck } from '../../src/quality/evaluate.js';
import { parseCheck } from '../../src/quality/parse-check.js';
import { EVAL_ITEMS } from '../../src/workload/datasets/eval/index.js';
import { estimateCount } from '../../src/util/token-estimate.js';

describe('eval suite', () => {
  it('has 10–20 items for every task, and unique prompts', () => {
    const perTask = new Map<string, number>();
    for (const it of EVAL_ITEMS) perTask.set(it.task, (perTask.get(it.task) ?? 0) + 1);
    expect([...perTask.keys()].sort()).toEqual(['arithmetic', 'closed_book', 'code', 'json_format', 'multiple_choice', 'over_refusal', 'refusal', 'retrieval', 'unit_conversion']);
    for (const [task, n] of perTask) {
      expect(n, task).toBeGreaterThanOrEqual(10);
      expect(n, task).toBeLessThanOrEqual(20);
    }
    expect(new Set(EVAL_ITEMS.map((i) => i.prompt)).size).toBe(EVAL_ITEMS.length);
  });

  it('closed_book has both answerable questions and unknowables', () => {
    const cb = EVAL_ITEMS.filter((i) => i.task === 'closed_book');
    expect(cb.filter((i) => i.check['answerable'] === false).length).toBeGreaterThanOrEqual(5);
    expect(cb.filter((i) => i.check['answerable'] === true).length).toBeGreaterThanOrEqual(5);
  });

  it('every reference passes its check and every wrong answer fails it', async () => {
    const failures: string[] = [];
    await Promise.all(
      EVAL_ITEMS.map(async (item, i) => {
        const check = parseCheck(item.check, `eval:${i + 1}`);
        const ok = await evaluateCheck(check, item.reference);
        const bad = await evaluateCheck(check, item.wrong);
        if (!ok.pass) failures.push(`${item.task} #${i + 1} reference failed: ${ok.reason}`);
        if (bad.pass) failures.push(`${item.task} #${i + 1} wrong answer passed: ${bad.reason}`);
      }),
    );
    expect(failures).toEqual([]);
  });

  it('every answer fits its max_tokens (the simulator streams it whole)', () => {
    for (const item of EVAL_ITEMS) {
      expect(estimateCount(item.reference), item.prompt).toBeLessThanOrEqual(item.max_tokens);
      expect(estimateCount(item.wrong), item.prompt).toBeLessThanOrEqual(item.max_tokens);
    }
  });
});
