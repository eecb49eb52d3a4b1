/** A broken history is repaired or refused, never an internal error (issue 24). */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

let root: string;
const results = () => join(root, 'results');

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'infermeter-history-repair-'));
  for (const name of ['a', 'b']) {
    const out = await runCli(['sim', 'run', '--result-dir', results(), '--random-input-len', '64', '--random-output-len', '8', '--num-prompts', '10', '--name', name]);
    expect(out.code, out.stderr).toBe(0);
  }
}, 60_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('history repair', () => {
  it('a corrupt history.duckdb is moved aside with one line and rebuilt from the run directories', async () => {
    writeFileSync(join(results(), 'history.duckdb'), 'this is not a database\n');
    const out = await runCli(['history', '--results-dir', results(), '--json']);
    expect(out.code, out.stderr).toBe(0);
    const lines = out.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^warning: history: .*history\.duckdb was not a readable database \(.*not a valid DuckDB database file.*\): moved aside to .*history\.duckdb\.corrupt-\d{4}-\d\d-\d\dT[\d-]+Z; rebuilt from 2 rows of the run directories$/);
    expect((JSON.parse(out.stdout) as unknown[]).length).toBe(2);
    expect(readdirSync(results()).filter((f) => f.startsWith('history.duckdb.corrupt-'))).toHaveLength(1);
    // Rebuilt: the next reader says nothing.
    const again = await runCli(['history', '--results-dir', results(), '--json']);
    expect(again.stderr).toBe('');
  });

  it('--reindex of a folder that does not exist is exit 2 and creates nothing', async () => {
    const missing = join(root, 'no-such-results');
    const out = await runCli(['history', '--results-dir', missing, '--reindex']);
    expect(out.code).toBe(2);
    expect(out.stderr.trim()).toBe(`error: --result-dir ${missing}: no such folder, so there are no run directories to index`);
    expect(existsSync(missing)).toBe(false);
  });
});
