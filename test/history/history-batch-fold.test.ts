/**
 * The journal folds in one statement (rows staged through DuckDB's appender): many rows all
 * arrive, each with its own values; every column holds what a plain parameterised INSERT of the
 * row stores (the row-by-row path before); a run given twice keeps its last row; a value of the
 * wrong kind is refused with its row alone.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { foldJournal, RUN_COLUMNS, setHistoryWarningSink, upsertRows, withHistory } from '../../src/history/history-db.js';
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
  it('600 pending rows all arrive with their own values', async () => {
    for (let i = 0; i < 600; i++) writePending(results, { ...row, run_id: `batch-${i}`, name: `n${i}` });
    await foldJournal(results);
    // Every folded file is removed (16 at a time), and with them the journal folder.
    expect(existsSync(join(results, '.history-pending'))).toBe(false);
    const rows = await count(`SELECT count(*)::INT AS n, count(DISTINCT name)::INT AS names FROM runs WHERE run_id LIKE 'batch-%'`);
    expect(rows[0]).toEqual({ n: 600, names: 600 });
    const one = await count(`SELECT name FROM runs WHERE run_id = 'batch-417'`);
    expect(one[0]).toEqual({ name: 'n417' });
  });

  it('a run given twice in one call keeps its last row', async () => {
    await withHistory(results, { mode: 'write' }, (c) => upsertRows(c, [{ ...row, run_id: 'twice', name: 'first' }, { ...row, run_id: 'other', name: 'o' }, { ...row, run_id: 'twice', name: 'last' }]));
    expect(await count(`SELECT name FROM runs WHERE run_id IN ('twice', 'other') ORDER BY run_id`)).toEqual([{ name: 'o' }, { name: 'last' }]);
  });

  it('every column holds what a parameterised INSERT of the row stores (nulls, an empty list, timestamps, JSON)', async () => {
    const odd: HistoryRow = { ...row, run_id: 'typed', name: '', validity_reasons: [], interrupted: true, concurrency: 7, request_rate: 0.1 + 0.2, ended_at: null, slo: '{"ttft_ms":{"p99":200}}' };
    const full: HistoryRow = { ...row, run_id: 'typed-2', validity_reasons: ['a "quoted" reason', 'b'] };
    await withHistory(results, { mode: 'write' }, (c) => upsertRows(c, [odd, full]));
    const cols = RUN_COLUMNS.map(([n]) => n);
    const tuple = RUN_COLUMNS.map(([, t]) => (t.startsWith('TIMESTAMP') ? '?::TIMESTAMPTZ' : t === 'JSON' ? '?::JSON' : t === 'VARCHAR[]' ? '?::JSON::VARCHAR[]' : '?')).join(', ');
    const rowsOf = (table: string) => withHistory(results, { mode: 'write' }, async (c) => {
      if (table === 'ref') {
        await c.run(`CREATE OR REPLACE TEMP TABLE ref AS SELECT * EXCLUDE (indexed_at) FROM runs LIMIT 0`);
        for (const r of [odd, full]) await c.run(`INSERT INTO ref (${cols.join(', ')}) VALUES (${tuple})`, cols.map((k) => (Array.isArray(r[k]) ? JSON.stringify(r[k]) : (r[k] ?? null))) as never);
        return (await c.runAndReadAll(`SELECT * FROM ref ORDER BY run_id`)).getRowObjectsJson();
      }
      return (await c.runAndReadAll(`SELECT * EXCLUDE (indexed_at) FROM runs WHERE run_id IN ('typed', 'typed-2') ORDER BY run_id`)).getRowObjectsJson();
    });
    const stored = await rowsOf('runs');
    expect(stored).toHaveLength(2);
    expect(stored[0]!.validity_reasons).toEqual([]);
    expect(stored[1]!.validity_reasons).toEqual(['a "quoted" reason', 'b']);
    expect(stored[0]!.request_rate).toBe(0.1 + 0.2);
    expect(stored).toEqual(await rowsOf('ref'));
  });

  it('a value of the wrong kind (text for a number) is refused with its row alone; the rest arrive', async () => {
    writePending(results, { ...row, run_id: 'ok-1' });
    writePending(results, { ...row, run_id: 'bad-kind', requests: 'many' as unknown as number });
    writePending(results, { ...row, run_id: 'ok-2' });
    const warnings: string[] = [];
    setHistoryWarningSink((line) => warnings.push(line));
    try {
      await foldJournal(results);
    } finally {
      setHistoryWarningSink((line) => process.stderr.write(line));
    }
    expect(warnings).toEqual([expect.stringMatching(/^warning: history: row \.history-pending\/bad-kind\.json could not be indexed \(run bad-kind: column requests holds "many", not a number\): moved to \.history-rejected\//)]);
    expect(await count(`SELECT run_id FROM runs WHERE run_id IN ('ok-1', 'ok-2', 'bad-kind') ORDER BY run_id`)).toEqual([{ run_id: 'ok-1' }, { run_id: 'ok-2' }]);
    expect(existsSync(join(results, '.history-rejected', 'bad-kind.json'))).toBe(true);
  });
});
