/**
 * The journal folds in multi-row statements: more rows than one statement takes all arrive, each
 * with its own values, and a run given twice keeps its last row (as row-by-row upserts did).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { foldJournal, upsertRows, withHistory } from '../../src/history/history-db.js';
import { writePending } from '../../src/history/history-journal.js';
import { rowFromRunDir } from '../../src/history/history-row.js';
import type { HistoryRow } from '../../src/history/history-row.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

let results = '';
let row: HistoryRow;

beforeAll(async () => {
  results = join(tempDir('history-batch'), 'results');
  const out = await runCli(['sim', 'run', '--num-prompts', '20', '--request-rate', '10', '--result-dir', results, '--no-report', '--quiet']);
  expect(out.code, out.stderr).toBe(0);
  const dir = readdirSync(results, { withFileTypes: true }).find((d) => d.isDirectory() && !d.name.startsWith('.'))!.name;
  row = rowFromRunDir(results, join(results, dir));
});

const count = (sql: string) => withHistory(results, { mode: 'read' }, async (c) => (await c.runAndReadAll(sql)).getRowObjects());

describe('journal fold in multi-row statements', () => {
  it('600 pending rows (three statements) all arrive with their own values', async () => {
    for (let i = 0; i < 600; i++) writePending(results, { ...row, run_id: `batch-${i}`, name: `n${i}` });
    await foldJournal(results);
    const rows = await count(`SELECT count(*)::INT AS n, count(DISTINCT name)::INT AS names FROM runs WHERE run_id LIKE 'batch-%'`);
    expect(rows[0]).toEqual({ n: 600, names: 600 });
    const one = await count(`SELECT name FROM runs WHERE run_id = 'batch-417'`);
    expect(one[0]).toEqual({ name: 'n417' });
  });

  it('a run given twice in one call keeps its last row', async () => {
    await withHistory(results, { mode: 'write' }, (c) => upsertRows(c, [{ ...row, run_id: 'twice', name: 'first' }, { ...row, run_id: 'other', name: 'o' }, { ...row, run_id: 'twice', name: 'last' }]));
    expect(await count(`SELECT name FROM runs WHERE run_id IN ('twice', 'other') ORDER BY run_id`)).toEqual([{ name: 'o' }, { name: 'last' }]);
  });
});
