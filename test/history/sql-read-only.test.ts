/**
 * `sql` is read-only by default: each kind of statement that would write a file, read a file
 * outside the views, attach or detach a database, change a setting or fetch an extension is
 * refused with one line (exit 2), and the history is unchanged; the views still answer.
 * `--allow-files` gives DuckDB's full power back.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HISTORY_FILE } from '../../src/history/history-db.js';
import { runCli } from '../helpers/cli.js';

let root: string;
const results = () => join(root, 'results');
const sql = (query: string, ...flags: string[]) => runCli(['sql', query, '--results-dir', results(), '--json', ...flags]);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'infermeter-sql-'));
  writeFileSync(join(root, 'foreign.txt'), 'not in the results folder\n');
  for (const name of ['a', 'b']) {
    const out = await runCli(['sim', 'run', '--result-dir', results(), '--random-input-len', '64', '--random-output-len', '8', '--num-prompts', '20', '--request-rate', '4', '--seed', '3', '--name', name]);
    expect(out.code, out.stderr).toBe(0);
  }
}, 60_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

async function runCount(): Promise<number> {
  const out = await sql('SELECT count(*)::INTEGER AS n FROM runs');
  expect(out.code, out.stderr).toBe(0);
  return (JSON.parse(out.stdout) as Array<{ n: number }>)[0]!.n;
}

describe('sql, read-only', () => {
  it('the views answer: runs, records, both joined, DESCRIBE, SUMMARIZE, several statements', async () => {
    const joined = await sql(`SELECT h.name, count(*)::INTEGER AS n FROM records r JOIN runs h USING (run_id) GROUP BY h.name ORDER BY h.name`);
    expect(joined.code, joined.stderr).toBe(0);
    expect(JSON.parse(joined.stdout)).toEqual([{ name: 'a', n: 20 }, { name: 'b', n: 20 }]);
    for (const q of ['DESCRIBE records', 'SUMMARIZE runs', 'FROM runs SELECT name', 'EXPLAIN SELECT * FROM records', 'SELECT 1; SELECT count(*) FROM records']) {
      const out = await sql(q);
      expect(out.code, `${q}: ${out.stderr}`).toBe(0);
    }
  });

  const outside = () => join(root, 'written.csv');
  const history = () => join(results(), HISTORY_FILE);
  const refused: Array<[string, () => string, RegExp]> = [
    ['COPY … TO writes a file', () => `COPY (SELECT * FROM runs) TO '${outside()}'`, /Permission Error|COPY is refused/],
    ['COPY over a records file', () => `COPY (SELECT 1) TO '${join(results(), 'x', 'records.jsonl')}' (FORMAT csv, USE_TMP_FILE false)`, /Permission Error|COPY is refused/],
    ['EXPORT DATABASE', () => `EXPORT DATABASE '${join(root, 'export')}'`, /Permission Error|EXPORT is refused/],
    ['ATTACH a new database', () => `ATTACH '${join(root, 'new.duckdb')}' AS n`, /Permission Error|ATTACH is refused/],
    ['ATTACH an in-memory database', () => `ATTACH ':memory:' AS m`, /ATTACH is refused/],
    ['DETACH the history', () => 'DETACH history', /DETACH is refused/],
    ['DETACH, then ATTACH the history to write it', () => `DETACH history; ATTACH '${history()}' AS h; DELETE FROM h.runs`, /DETACH is refused|Permission Error/],
    ['read_text of a file outside the results', () => `SELECT * FROM read_text('${join(root, 'foreign.txt')}')`, /Permission Error/],
    ['read_csv of a system file', () => `SELECT * FROM read_csv('/etc/hostname')`, /Permission Error/],
    ['glob of the file system', () => `SELECT * FROM glob('/etc/*')`, /Permission Error/],
    ['INSTALL an extension', () => 'INSTALL httpfs', /INSTALL or LOAD is refused/],
    ['LOAD an extension', () => 'LOAD httpfs', /INSTALL or LOAD is refused/],
    ['SET a setting back', () => 'SET enable_external_access = true', /SET is refused|locked/],
    ['CREATE a table', () => 'CREATE TABLE t AS SELECT 1', /CREATE is refused/],
    ['DELETE from the history', () => 'DELETE FROM runs', /Can only delete|DELETE is refused|not a table|read-only/i],
  ];
  it.each(refused)('%s: refused with one line, exit 2', async (_what, query, why) => {
    const before = readFileSync(history());
    const out = await sql(query());
    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    const lines = out.stderr.trim().split('\n');
    expect(lines, out.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^error: sql: /);
    expect(lines[0]).toMatch(why);
    expect(existsSync(outside())).toBe(false);
    expect(existsSync(join(root, 'new.duckdb'))).toBe(false);
    expect(existsSync(join(root, 'export'))).toBe(false);
    expect(readFileSync(history()).equals(before)).toBe(true);
  });

  it('the history is whole after every refusal', async () => {
    expect(await runCount()).toBe(2);
  });

  it('--allow-files gives DuckDB its files back: COPY writes, read_text reads', async () => {
    const copy = await sql(`COPY (SELECT name FROM runs ORDER BY name) TO '${outside()}' (HEADER false)`, '--allow-files');
    expect(copy.code, copy.stderr).toBe(0);
    expect(readFileSync(outside(), 'utf8')).toBe('a\nb\n');
    const read = await sql(`SELECT content FROM read_text('${join(root, 'foreign.txt')}')`, '--allow-files');
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout)).toEqual([{ content: 'not in the results folder\n' }]);
    rmSync(outside());
  });
});
