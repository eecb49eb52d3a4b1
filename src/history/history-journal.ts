/**
 * The history's journal: `<results>/.history-pending/<run_id>.json`, one row per file. A
 * finishing run writes its row here and never opens the database (history-db.ts folds the
 * journal in before any use of the file). Its own module, without DuckDB, so that a run's
 * process does not load DuckDB at all.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HistoryRow } from './history-row.js';

export const PENDING_DIR = '.history-pending';
/** The history's database file (history-db.ts), named here so a reader can look for it without loading DuckDB. */
export const HISTORY_FILE = 'history.duckdb';

/** Whether the results folder has a history to read: its database, or rows waiting in the journal. */
export function hasHistory(resultsDir: string): boolean {
  return existsSync(join(resultsDir, HISTORY_FILE)) || hasJournal(resultsDir);
}

/** Whether rows wait in the journal. */
export function hasJournal(resultsDir: string): boolean {
  return existsSync(join(resultsDir, PENDING_DIR));
}

/** Adds a row to the journal, for whoever opens the history next; returns its file. */
export function writePending(resultsDir: string, row: HistoryRow): string {
  const dir = join(resultsDir, PENDING_DIR);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${row.run_id}.json`);
  // Written aside and renamed, so a reader never sees half a row.
  writeFileSync(`${path}.tmp`, `${JSON.stringify(row)}\n`);
  renameSync(`${path}.tmp`, path);
  return path;
}

/** The rows waiting in the journal, for a reader that must not fold them in (an unreadable file is skipped: the next fold deals with it). */
export function pendingRows(resultsDir: string): HistoryRow[] {
  const dir = join(resultsDir, PENDING_DIR);
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  } catch {
    return [];
  }
  const rows: HistoryRow[] = [];
  for (const f of files) {
    try {
      rows.push(JSON.parse(readFileSync(join(dir, f), 'utf8')) as HistoryRow);
    } catch {
      // torn or removed meanwhile
    }
  }
  return rows;
}
