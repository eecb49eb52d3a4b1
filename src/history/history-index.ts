/**
 * Putting runs into the history. `indexRun` is called at the end of every saved run and must
 * never fail it: whatever goes wrong becomes one warning line, and the row is kept in
 * `.history-pending/` when the database could not take it. `reindex` rebuilds rows from the run
 * directories themselves (runs from before the history existed, or a deleted history file).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { HistoryBusyError, upsertRows, withHistory, writePending } from './history-db.js';
import { isSweepDir, rowFromRunDir, rowsFromSweepDir, type HistoryRow } from './history-row.js';

export interface IndexOptions {
  lockWaitMs?: number;
}

/** Indexes the run (or each stage of the sweep) in `runDir`; returns null when done, else the one-line warning to print. */
export async function indexRun(resultsDir: string, runDir: string, opts: IndexOptions = {}): Promise<string | null> {
  let rows: HistoryRow[];
  try {
    rows = rowsFromDir(resultsDir, runDir);
  } catch (err) {
    return `history: not indexed (${message(err)}); the run directory is complete`;
  }
  try {
    await withHistory(resultsDir, { mode: 'write', ...(opts.lockWaitMs !== undefined ? { lockWaitMs: opts.lockWaitMs } : {}) }, (c) => upsertRows(c, rows));
    return null;
  } catch (err) {
    try {
      let pending = '';
      for (const row of rows) pending = writePending(resultsDir, row);
      const why = err instanceof HistoryBusyError ? 'the history was busy' : message(err);
      return `history: ${why}; ${rows.length === 1 ? `the row waits in ${pending}` : `the ${rows.length} rows wait in ${dirname(pending)}`} and ${rows.length === 1 ? 'is' : 'are'} added by the next run or \`infermeter history\``;
    } catch (err2) {
      return `history: not indexed (${message(err)}; ${message(err2)}); \`infermeter history --reindex\` adds it later`;
    }
  }
}

/** The rows of a run directory (one) or a sweep directory (one per stage). */
function rowsFromDir(resultsDir: string, dir: string): HistoryRow[] {
  return isSweepDir(dir) ? rowsFromSweepDir(resultsDir, dir) : [rowFromRunDir(resultsDir, dir)];
}

/** Run and sweep directories under `resultsDir` (one level: results/<run>/result.json or results/<sweep>/sweep.json). */
export function runDirs(resultsDir: string): string[] {
  if (!existsSync(resultsDir)) return [];
  return readdirSync(resultsDir)
    .filter((d) => !d.startsWith('.'))
    .map((d) => join(resultsDir, d))
    .filter((p) => {
      try {
        return statSync(p).isDirectory() && (existsSync(join(p, 'result.json')) || existsSync(join(p, 'sweep.json')));
      } catch {
        return false;
      }
    });
}

/** Indexes every run directory; returns how many were indexed and the ones that could not be read. */
export async function reindex(resultsDir: string): Promise<{ indexed: number; skipped: string[] }> {
  const rows: HistoryRow[] = [];
  const skipped: string[] = [];
  for (const dir of runDirs(resultsDir)) {
    try {
      rows.push(...rowsFromDir(resultsDir, dir));
    } catch (err) {
      skipped.push(`${dir}: ${message(err)}`);
    }
  }
  await withHistory(resultsDir, { mode: 'write' }, (c) => upsertRows(c, rows));
  return { indexed: rows.length, skipped };
}

function message(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
}
