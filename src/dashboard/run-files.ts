/**
 * Run directories as the dashboard sees them: a run id names a folder directly under the
 * results folder (never a path: no separators, no dot-dot), and only a few known files in it
 * are served.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readPartialRun } from '../store/run-bundle.js';
import { PROGRESS_FILE } from '../store/progress-file.js';

/** The files of a run the dashboard serves, and their content types. */
export const SERVED_FILES: Record<string, string> = {
  'result.json': 'application/json; charset=utf-8',
  'sweep.json': 'application/json; charset=utf-8',
  'spec.json': 'application/json; charset=utf-8',
  'records.jsonl': 'application/x-ndjson; charset=utf-8',
  [PROGRESS_FILE]: 'application/x-ndjson; charset=utf-8',
};

/** Whether `id` can name a run folder: a plain name, no separators, not hidden. */
function isRunName(id: string): boolean {
  return /^[\w.-]+$/.test(id) && !id.startsWith('.');
}

/** The run directory of `id`, or null when `id` is not a plain folder name under `resultsDir`. */
export function runDirOf(resultsDir: string, id: string): string | null {
  if (!isRunName(id)) return null;
  const dir = join(resultsDir, id);
  try {
    return statSync(dir).isDirectory() ? dir : null;
  } catch {
    return null;
  }
}

export interface LiveRun {
  run_id: string;
  started_at: string | null;
  model: string | null;
  /** The newest frame of its progress.jsonl. */
  last: Record<string, unknown> | null;
}

/**
 * Runs still going on: progress.jsonl but no result.json yet. The page asks every few seconds and
 * the folder holds every run ever made: the listing's entry types say which are folders (a stat
 * only for a link or an entry of unknown type), so a finished run costs one existence check.
 */
export function liveRuns(resultsDir: string): LiveRun[] {
  if (!existsSync(resultsDir)) return [];
  const out: LiveRun[] = [];
  for (const entry of readdirSync(resultsDir, { withFileTypes: true })) {
    const id = entry.name;
    if (!isRunName(id) || entry.isFile()) continue;
    const dir = entry.isDirectory() ? join(resultsDir, id) : runDirOf(resultsDir, id);
    if (!dir || existsSync(join(dir, 'result.json')) || !existsSync(join(dir, PROGRESS_FILE))) continue;
    // spec.json is written before the load starts; without it (or unreadable) the run is still listed
    const target = readPartialRun(dir, { schema: 'ignore' }).spec?.target as { model?: unknown } | undefined;
    const model = typeof target?.model === 'string' ? target.model : null;
    const lines = readFileSync(join(dir, PROGRESS_FILE), 'utf8').trimEnd().split('\n');
    let last: Record<string, unknown> | null;
    try {
      last = JSON.parse(lines[lines.length - 1] ?? '') as Record<string, unknown>;
    } catch {
      last = null;
    }
    out.push({ run_id: id, started_at: statSync(dir).birthtime.toISOString(), model, last });
  }
  return out;
}
