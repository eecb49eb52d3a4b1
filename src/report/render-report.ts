/**
 * `renderReport(dir)`: the HTML report of a saved run directory, as a string. The one entry
 * point for `infermeter report`, the report written at the end of a run, and the dashboard.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { SweepContext } from '../analysis/load-curve.js';
import { UserError } from '../errors/user-error.js';
import type { Snapshot } from '../observe/snapshot.js';
import type { RequestRecord } from '../record/record.js';
import { isSweepDir, readJsonFile, readRunBundle, readRunRecords, readSpec } from '../store/run-bundle.js';
import { buildRunReport, type RunBundle } from './html/run-report.js';
import { buildSweepReport, type SweepDoc } from './html/sweep-report.js';
import type { RunResult } from './result-json.js';

export const REPORT_FILE = 'report.html';

export interface ReportOptions {
  /** The run's records when the caller holds them already (the end of a run), to skip re-reading records.jsonl. */
  records?: readonly RequestRecord[];
  /** The run's result object when the caller holds it (the end of a run), to skip re-reading result.json. */
  result?: RunResult;
  /** Names the generator in the page (e.g. "infermeter 0.1.0"). */
  generator?: string;
  /** Where a warning about repaired records goes (store/records-check.ts). */
  warn?: (line: string) => void;
  /** A sweep of the run's target and workload, drawn on the first screen (session/sweep-context.ts finds it in the history). */
  sweepContext?: SweepContext | null;
}

/** server-metrics.jsonl: one snapshot per line; a line that does not parse is skipped (a run cut short mid-write). */
function readServerSnapshots(path: string): Snapshot[] {
  const out: Snapshot[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const s = JSON.parse(line) as Snapshot;
      if (typeof s === 'object' && s !== null && typeof s.t_ms === 'number' && typeof s.values === 'object') out.push(s);
    } catch {
      // a torn last line: what was written before it still draws
    }
  }
  return out;
}

/**
 * A saved run for the report: the run directory (store/run-bundle.ts) and the server's scrapes.
 * `records` and `given` are what the caller holds already (the end of a run), so they are not read again.
 * @throws UserError when `dir` is not a run directory (no result.json) or a file in it cannot be read.
 */
export function loadRunBundle(dir: string, records?: readonly RequestRecord[], given?: RunResult, warn?: (line: string) => void): RunBundle {
  const read = { records: records ? ('skip' as const) : ('optional' as const), ...(warn ? { warn } : {}) };
  if (given) {
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UserError(`${dir}: no such run directory`);
    return { result: given, spec: readSpec(dir), records: records ?? readRunRecords(dir, read), serverSnapshots: readServer(dir) };
  }
  const saved = readRunBundle<RunResult>(dir, read);
  return { result: saved.result, spec: saved.spec, records: records ?? saved.records, serverSnapshots: readServer(dir) };
}

function readServer(dir: string): Snapshot[] {
  const serverPath = join(dir, 'server-metrics.jsonl');
  return existsSync(serverPath) ? readServerSnapshots(serverPath) : [];
}

export interface SweepBundle {
  doc: SweepDoc;
  spec: unknown;
  /** Every stage's records (each with its `stage`); empty without records.jsonl. */
  records: readonly RequestRecord[];
}

/** A saved sweep. @throws UserError when sweep.json is not an infermeter sweep or a file cannot be read. */
export function loadSweepBundle(dir: string, records?: readonly RequestRecord[]): SweepBundle {
  const sweepPath = join(dir, 'sweep.json');
  const doc = readJsonFile(sweepPath) as SweepDoc;
  if (typeof doc !== 'object' || doc === null || !String(doc.schema ?? '').startsWith('infermeter.sweep/')) {
    throw new UserError(`${sweepPath}: not an infermeter sweep (no "schema": "infermeter.sweep/…")`);
  }
  return { doc, spec: readSpec(dir), records: records ?? readRunRecords(dir) };
}

/** The HTML report of a run directory, or of a sweep directory (sweep.json). @throws UserError as loadRunBundle. */
export async function renderReport(dir: string, opts: ReportOptions = {}): Promise<string> {
  if (isSweepDir(dir)) {
    const { doc, spec, records } = loadSweepBundle(dir, opts.records);
    return buildSweepReport(doc, spec, opts.generator ?? `infermeter ${doc.infermeter_version}`, records);
  }
  const bundle = loadRunBundle(dir, opts.records, opts.result, opts.warn);
  return buildRunReport(bundle, opts.generator ?? `infermeter ${bundle.result.infermeter_version}`, opts.sweepContext);
}
