/**
 * The shared reader's kept answers (history-pool.ts `cached`): an answer is computed once per
 * version of the history and served again without opening the file; a journal row, or a write by
 * anyone while the reader is closed, makes a new version; a failure is not kept.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { upsertRows, withOwnHistory } from '../../src/history/history-db.js';
import { writePending } from '../../src/history/history-journal.js';
import { HistoryReadPool, historyVersion } from '../../src/history/history-pool.js';
import { rowFromRunDir, type HistoryRow } from '../../src/history/history-row.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

let results = '';
let row: HistoryRow;

beforeAll(async () => {
  results = join(tempDir('history-pool-cache'), 'results');
  const out = await runCli(['sim', 'run', '--num-prompts', '10', '--request-rate', '10', '--result-dir', results, '--no-report', '--quiet']);
  expect(out.code, out.stderr).toBe(0);
  const dir = readdirSync(results, { withFileTypes: true }).find((d) => d.isDirectory() && !d.name.startsWith('.'))!.name;
  row = rowFromRunDir(results, join(results, dir));
});

/** A kept answer: the runs in the history, and how many times it was computed. */
function counter(pool: HistoryReadPool) {
  let computed = 0;
  const ask = () =>
    pool.cached('runs', async () => {
      computed++;
      return pool.use(async (c) => (await c.runAndReadAll(`SELECT run_id FROM runs ORDER BY run_id`)).getRowObjects().map((r) => String(r.run_id)));
    });
  return { ask, computed: () => computed };
}

describe('shared reader: answers kept per version of the history', () => {
  it('computes once per version, serves it again without an open, and computes again after any write', async () => {
    const pool = new HistoryReadPool(results, { idleMs: 60_000 });
    const { ask, computed } = counter(pool);
    try {
      const first = await ask(); // the run's own row, from the journal its run left
      expect(first).toEqual([row.run_id]);
      // Together and one after the other: one computation.
      expect(await Promise.all([ask(), ask()])).toEqual([first, first]);
      expect(await ask()).toEqual(first);
      expect(computed()).toBe(1);
      expect(pool.opens).toBe(1);

      // Closed, the file unchanged: the kept answer, no open.
      await pool.close();
      expect(await ask()).toEqual(first);
      expect(computed()).toBe(1);
      expect(pool.opens).toBe(1);

      // A run finished meanwhile (its journal row): folded in, a new answer.
      writePending(results, { ...row, run_id: 'b-journal' });
      expect(await ask()).toEqual(['b-journal', row.run_id].sort());
      expect(computed()).toBe(2);

      // Another writer while the reader is closed (as `history --reindex` would be): a new version.
      await pool.close();
      const before = historyVersion(results);
      await withOwnHistory(results, { mode: 'write' }, (c) => upsertRows(c, [{ ...row, run_id: 'c-written' }]));
      expect(historyVersion(results)).not.toBe(before);
      expect(await ask()).toEqual(['b-journal', 'c-written', row.run_id].sort());
      expect(computed()).toBe(3);
    } finally {
      await pool.close();
    }
  });

  it('a failure is not kept; other keys are apart', async () => {
    const pool = new HistoryReadPool(results, { idleMs: 60_000 });
    try {
      let calls = 0;
      const flaky = () =>
        pool.cached('flaky', async () => {
          if (calls++ === 0) throw new Error('first time');
          return 'second time';
        });
      await expect(flaky()).rejects.toThrow('first time');
      expect(await flaky()).toBe('second time');
      expect(await flaky()).toBe('second time');
      expect(calls).toBe(2);
      expect(await pool.cached('other', async () => 'other answer')).toBe('other answer');
    } finally {
      await pool.close();
    }
  });

  it('no history file yet: an empty answer, then the file once it is written', async () => {
    const empty = join(tempDir('history-pool-cache-empty'), 'results');
    const pool = new HistoryReadPool(empty, { idleMs: 60_000 });
    const { ask, computed } = counter(pool);
    try {
      expect(await ask()).toEqual([]);
      await pool.close();
      await withOwnHistory(empty, { mode: 'write' }, (c) => upsertRows(c, [{ ...row, run_id: 'first-ever' }]));
      expect(await ask()).toEqual(['first-ever']);
      expect(computed()).toBe(2);
    } finally {
      await pool.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
