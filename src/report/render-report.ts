/**
 * `renderReport(dir)`: the HTML report of a saved run directory, as a string. The one entry
 * point for `infermeter report`, the report written at the end of a run, and the dashboard.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../errors/user-error.js';
import type { Snapshot } from '../observe/snapshot.js';
import type { RequestRecord } from '../record/record.js';
import { readRecordsFile } from '../store/records-file.js';
import { buildRunReport, type RunBundle } from './html/run-report.js';
import { buildSweepReport, type SweepDoc } from './html/sweep-report.js';
import { unreadableResultSchema, type RunResult } from './result-json.js';

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
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UserError(`${path}: cannot read (${err instanceof SyntaxError ? 'not valid JSON' : ((err as NodeJS.ErrnoException).code ?? String(err))})`);
  }
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
 * A saved run: result.json, spec.json (null if absent) and the records (empty if records.jsonl is absent).
 * @throws UserError when `dir` is not a run directory (no result.json) or a file in it cannot be read.
 */
export function loadRunBundle(dir: string, records?: readonly RequestRecord[], given?: RunResult, warn?: (line: string) => void): RunBundle {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UserError(`${dir}: no such run directory`);
  const resultPath = join(dir, 'result.json');
  if (given) return { result: given, spec: existsSync(join(dir, 'spec.json')) ? readJson(join(dir, 'spec.json')) : null, records: records ?? readRecords(dir, warn), serverSnapshots: readServer(dir) };
  if (!existsSync(resultPath)) throw new UserError(`${dir}: no result.json or sweep.json (not a run or sweep directory, or the run did not finish; \`infermeter analyze\` recomputes from records.jsonl)`);
  const result = readJson(resultPath) as RunResult;
  const unreadable = unreadableResultSchema(result);
  if (unreadable) throw new UserError(`${resultPath}: ${unreadable}`);
  const specPath = join(dir, 'spec.json');
  const spec = existsSync(specPath) ? readJson(specPath) : null;
  return { result, spec, records: records ?? readRecords(dir, warn), serverSnapshots: readServer(dir) };
}

function readRecords(dir: string, warn?: (line: string) => void): readonly RequestRecord[] {
  const recordsPath = join(dir, 'records.jsonl');
  return existsSync(recordsPath) ? readRecordsFile(recordsPath, warn ? { warn } : {}).records : [];
}

function readServer(dir: string): Snapshot[] {
  const serverPath = join(dir, 'server-metrics.jsonl');
  return existsSync(serverPath) ? readServerSnapshots(serverPath) : [];
}

/** A sweep directory: sweep.json and no result.json of its own. */
export function isSweepDir(dir: string): boolean {
  return existsSync(dir) && existsSync(join(dir, 'sweep.json')) && !existsSync(join(dir, 'result.json'));
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
  const doc = readJson(sweepPath) as SweepDoc;
  if (typeof doc !== 'object' || doc === null || !String(doc.schema ?? '').startsWith('infermeter.sweep/')) {
    throw new UserError(`${sweepPath}: not an infermeter sweep (no "schema": "infermeter.sweep/…")`);
  }
  const specPath = join(dir, 'spec.json');
  const recordsPath = join(dir, 'records.jsonl');
  return { doc, spec: existsSync(specPath) ? readJson(specPath) : null, records: records ?? (existsSync(recordsPath) ? readRecordsFile(recordsPath).records : []) };
}

/** The HTML report of a run directory, or of a sweep directory (sweep.json). @throws UserError as loadRunBundle. */
export async function renderReport(dir: string, opts: ReportOptions = {}): Promise<string> {
  if (isSweepDir(dir)) {
    const { doc, spec, records } = loadSweepBundle(dir, opts.records);
    return buildSweepReport(doc, spec, opts.generator ?? `infermeter ${doc.infermeter_version}`, records);
  }
  const bundle = loadRunBundle(dir, opts.records, opts.result, opts.warn);
  return buildRunReport(bundle, opts.generator ?? `infermeter ${bundle.result.infermeter_version}`);
}
