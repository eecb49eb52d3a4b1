/**
 * Putting runs into the history. `indexRun` is called at the end of every saved run and must
 * never fail it: whatever goes wrong becomes one warning line. It writes the run's row to the
 * history's journal (`.history-pending/`, history-db.ts) and does not open the database, so a
 * run's process never loads DuckDB; every reader of the history folds the journal in first.
 * `reindex` rebuilds rows from the run directories themselves (runs from before the history
 * existed, or a deleted history file).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writePending } from './history-journal.js';
import { UserError } from '../errors/user-error.js';
import { isSweepDir } from '../store/run-bundle.js';
import { rowFromRunDir, rowOfRun, rowsFromSweepDir, type HistoryRow } from './history-row.js';

/** Journals the row of the run (or of each stage of the sweep) in `runDir`; returns null when done, else the one-line warning to print. */
export async function indexRun(resultsDir: string, runDir: string): Promise<string | null> {
  let rows: HistoryRow[];
  try {
    rows = rowsFromDir(resultsDir, runDir);
  } catch (err) {
    return `history: not indexed (${message(err)}); the run directory is complete`;
  }
  return journal(resultsDir, rows);
}

/**
 * Journals the row of a run that just finished from its result object and spec as held in
 * memory (what result.json and spec.json hold), so the run's directory is not read back.
 */
export async function indexRunResult(resultsDir: string, runDir: string, result: Record<string, unknown>, spec: unknown): Promise<string | null> {
  let row: HistoryRow;
  try {
    row = rowOfRun(resultsDir, runDir, result, spec);
  } catch (err) {
    return `history: not indexed (${message(err)}); the run directory is complete`;
  }
  return journal(resultsDir, [row]);
}

function journal(resultsDir: string, rows: readonly HistoryRow[]): string | null {
  try {
    for (const row of rows) writePending(resultsDir, row);
    return null;
  } catch (err) {
    return `history: not indexed (${message(err)}); \`infermeter history --reindex\` adds it later`;
  }
}

/** The rows of a run directory (one) or a sweep directory (one per stage). */
function rowsFromDir(resultsDir: string, dir: string): HistoryRow[] {
  return isSweepDir(dir) ? rowsFromSweepDir(resultsDir, dir) : [rowFromRunDir(resultsDir, dir)];
}

/**
 * Run and sweep directories under `resultsDir`: results/<run>/result.json, results/<sweep>/sweep.json,
 * and the runs of a repeat directory, results/<repeat>/repeat-<k>/result.json (its repeats.json beside them).
 */
export function runDirs(resultsDir: string): string[] {
  return subdirs(resultsDir).flatMap((p) => (existsSync(join(p, 'repeats.json')) ? subdirs(p).filter((r) => /\/repeat-\d+$/.test(r) && isRunDir(r)) : isRunDir(p) ? [p] : []));
}

function subdirs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((d) => !d.startsWith('.'))
    .map((d) => join(dir, d))
    .filter((p) => {
      try {
        return statSync(p).isDirectory();
      } catch {
        return false;
      }
    });
}

function isRunDir(p: string): boolean {
  return existsSync(join(p, 'result.json')) || existsSync(join(p, 'sweep.json'));
}

/** Indexes every run directory; returns how many were indexed and the ones that could not be read. */
export async function reindex(resultsDir: string): Promise<{ indexed: number; skipped: string[] }> {
  // A mistyped folder is bad input, not an empty history to create.
  let isDir: boolean;
  try {
    isDir = statSync(resultsDir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new UserError(`--result-dir ${resultsDir}: no such folder, so there are no run directories to index`);
  const { rows, skipped } = collectRows(resultsDir);
  // Imported here: indexing a run (above) must not load DuckDB into the run's process.
  const { upsertRows, withHistory } = await import('./history-db.js');
  await withHistory(resultsDir, { mode: 'write' }, (c) => upsertRows(c, rows));
  return { indexed: rows.length, skipped };
}

/** The history rows of every run directory under `resultsDir`, and the directories that could not be read. */
export function collectRows(resultsDir: string): { rows: HistoryRow[]; skipped: string[] } {
  const rows: HistoryRow[] = [];
  const skipped: string[] = [];
  for (const dir of runDirs(resultsDir)) {
    try {
      rows.push(...rowsFromDir(resultsDir, dir));
    } catch (err) {
      skipped.push(`${dir}: ${message(err)}`);
    }
  }
  return { rows, skipped };
}

function message(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
}
