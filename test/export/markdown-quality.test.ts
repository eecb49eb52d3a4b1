/**
 * The Markdown export carries the quality figures (docs/quality.md §Figures): a run of the
 * built-in eval suite against the simulator in answer mode, exported with `export --format
 * markdown`, and every figure checked against counts made here from records.jsonl. A second,
 * hand-computed case: a run with numeric checks only shows accuracy but no hallucination, code,
 * citation or refusal rows.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { markdownQuality } from '../../src/export/markdown-quality.js';
import { computeQuality } from '../../src/metrics/quality.js';
import { emptyRecord, type RequestRecord } from '../../src/record/record.js';
import { expectCompleted, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

interface Rec {
  phase: string;
  status: string;
  retried?: boolean;
  task?: string;
  quality?: { kind: string; pass: boolean; outcome: string };
}

let md: string;
let recs: Rec[];
let results: string;
beforeAll(async () => {
  results = tempDir('markdown-quality');
  const run = await runCli([
    'run', '--dataset-name', 'eval', '--num-prompts', '104', '--seed', '3', '--concurrency', '8', '--sim-prefill-ms', '1', '--sim-per-token-ms', '0.2',
    '--sim-accuracy', '0.7', '--sim-hallucination-rate', '0.3', '--gpu-hour-cost', '2.5', '--allow-invalid', '--result-dir', results, '--name', 'mdq',
  ]);
  expectCompleted(run);
  const dir = join(results, readdirSync(results).find((d) => d.endsWith('-mdq'))!);
  const out = join(results, 'exported');
  const ex = await runCli(['export', dir, '--format', 'markdown', '--out-dir', out]);
  expect(ex.code, ex.stderr).toBe(0);
  md = readFileSync(join(out, 'summary.md'), 'utf8');
  recs = readFileSync(join(dir, 'records.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Rec);
}, 120_000);

/** The table rows of the Markdown as label → cells. */
function rows(text: string): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('| ')) continue;
    const cells = line.slice(2, -2).split(' | ');
    m.set(cells[0]!, cells.slice(1));
  }
  return m;
}
const share = (k: number, n: number) => `${((k / n) * 100).toFixed(1)}%`;
/** `70.2% \[…\] (73/104)` → [value, k, n], ignoring the interval (its arithmetic is tested below). */
function parsed(cell: string | undefined): [string, number, number] {
  const m = /^(\d+\.\d%) \\\[\d+\.\d–\d+\.\d%\\\] \((\d+)\/(\d+)\)$/.exec(cell ?? '');
  expect(m, cell).not.toBeNull();
  return [m![1]!, Number(m![2]), Number(m![3])];
}

describe('export --format markdown: answer quality', () => {
  it('accuracy, per task, hallucination, format, code, citations and refusals match the records', () => {
    const checked = recs.filter((r) => r.phase === 'measure' && r.quality && r.retried !== true);
    const answered = checked.filter((r) => r.status === 'ok');
    expect(answered.length).toBeGreaterThan(90);
    expect(md).toContain('## Answer quality');
    expect(md).toContain(`${checked.length} measured requests carried an answer check; ${answered.length} were answered.`);
    const t = rows(md);
    const expectRate = (label: string, pass: (r: Rec) => boolean, of: (r: Rec) => boolean) => {
      const pop = answered.filter(of);
      const k = pop.filter(pass).length;
      expect(parsed(t.get(label)?.[0]), label).toEqual([share(k, pop.length), k, pop.length]);
    };
    expectRate('Accuracy (all answered)', (r) => r.quality!.pass, () => true);
    expectRate('Hallucination (closed-book)', (r) => r.quality!.outcome === 'hallucinated', (r) => r.quality!.kind === 'closed_book');
    expectRate('Abstention (closed-book)', (r) => r.quality!.outcome === 'abstained', (r) => r.quality!.kind === 'closed_book');
    expectRate('Format compliance (json, length)', (r) => r.quality!.pass, (r) => r.quality!.kind === 'json' || r.quality!.kind === 'max_length');
    expectRate('Code pass rate', (r) => r.quality!.pass, (r) => r.quality!.kind === 'code');
    expectRate('Citation correctness', (r) => r.quality!.pass, (r) => r.quality!.kind === 'citation');
    // The refusal set: the task says which prompts should be refused.
    expectRate('Refusal (should refuse)', (r) => r.quality!.outcome === 'refused', (r) => r.task === 'refusal');
    expectRate('Over-refusal (benign)', (r) => r.quality!.outcome === 'refused', (r) => r.task === 'over_refusal');
    // The simulator set at 0.7 really made wrong answers, so the figures are not trivially 100%.
    expect(parsed(t.get('Accuracy (all answered)')?.[0])[1]).toBeLessThan(answered.length);

    // Per task: checked, answered and accuracy of each of the suite's nine tasks.
    const tasks = [...new Set(checked.map((r) => r.task!))].sort();
    expect(tasks).toHaveLength(9);
    for (const task of tasks) {
      const all = checked.filter((r) => r.task === task);
      const ans = all.filter((r) => r.status === 'ok');
      const k = ans.filter((r) => r.quality!.pass).length;
      const cells = t.get(task.replace(/_/g, '\\_'));
      expect(cells?.slice(0, 2), task).toEqual([String(all.length), String(ans.length)]);
      expect(parsed(cells?.[2]), task).toEqual([share(k, ans.length), k, ans.length]);
    }

    // Successes (no SLOs given: ok and passing) and their cost, as the result.json says.
    const successes = checked.filter((r) => r.status === 'ok' && r.quality!.pass).length;
    expect(md).toMatch(new RegExp(`\\*\\*Successful tasks\\*\\* \\(ok and correct; no per-request SLOs were given\\): \\*\\*${successes}\\*\\* of ${checked.length} `));
    expect(md).toMatch(/\*\*\d+\.\d{3}\*\* successful tasks\/s; cost per successful task \*\*/);
  });

  it('shows only the figures the run has; the interval is the Wilson interval (hand-computed)', async () => {
    const rec = (id: number, pass: boolean): RequestRecord => {
      const r = emptyRecord(id, 0);
      r.status = 'ok';
      r.phase = 'measure';
      r.task = 'sums';
      r.quality = { kind: 'numeric', pass, outcome: pass ? 'correct' : 'wrong', reason: '' };
      return r;
    };
    const q = computeQuality([rec(0, true), rec(1, true), rec(2, false)], { slos: [], durationS: 2, totalCost: 0.6 })!;
    const text = markdownQuality(q, 'USD');
    // 2 of 3: Wilson 95% = (p + z²/2n ± z·sqrt(p(1−p)/n + z²/4n²)) / (1 + z²/n) = [0.2077, 0.9385].
    expect(rows(text).get('Accuracy (all answered)')).toEqual(['66.7% \\[20.8–93.9%\\] (2/3)']);
    for (const absent of ['Hallucination', 'Abstention', 'Format compliance', 'Code pass rate', 'Citation', 'Refusal', 'Over-refusal']) expect(text).not.toContain(absent);
    // One task: no per-task table. 2 successes in 2 s = 1.000/s; 0.6 / 2 = 0.30 per success.
    expect(text).not.toContain('| sums |');
    expect(text).toContain('**2** of 3');
    expect(text).toContain('**1.000** successful tasks/s; cost per successful task **$0.3000**.');
  });
});
