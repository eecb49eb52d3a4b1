/**
 * A saved run directory read into one object: result.json (its schema checked against the versions
 * this build reads), spec.json and the records (through the streaming reader and its checks, as
 * read-only views of typed columns). The
 * one reader of a run directory for report, export, compare, plan --from and the history; its
 * lenient form (`readPartialRun`) for analyze, sim calibrate and the dashboard.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../errors/user-error.js';
import type { RequestRecord } from '../record/record.js';
import { readRecordColumns } from './records-reader.js';
import { unreadableResultSchema } from './result-schema.js';

export interface RunBundle<R> {
  dir: string;
  /** result.json, of a schema this build reads. */
  result: R;
  /** spec.json (the run spec as validated, secrets removed); null when the directory has none. */
  spec: Record<string, unknown> | null;
  /** records.jsonl's records in file order; empty when it is absent (`records: 'optional'`) or not read (`'skip'`). */
  records: RequestRecord[];
}

export interface RunBundleOptions {
  /** `required`: no records.jsonl is an error; `optional` (default): read when present; `skip`: not read. */
  records?: 'required' | 'optional' | 'skip';
  /** Where the records reader's warnings go (a record written twice). */
  warn?: (line: string) => void;
}

/** A JSON file of a saved directory; one line naming it when it cannot be read or parsed. */
export function readJsonFile(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UserError(`${path}: cannot read (${err instanceof SyntaxError ? 'not valid JSON' : ((err as NodeJS.ErrnoException).code ?? String(err))})`);
  }
}

/**
 * Reads the run directory `dir`. `R` is the result's type as the caller knows it
 * (report/result-json.ts's RunResult): the schema check is what makes it that.
 * @throws UserError: no such directory, no result.json, a file that does not parse, a schema this build does not read, impossible records.
 */
export function readRunBundle<R>(dir: string, o: RunBundleOptions = {}): RunBundle<R> {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UserError(`${dir}: no such run directory`);
  const resultPath = join(dir, 'result.json');
  if (!existsSync(resultPath)) throw new UserError(`${dir}: no result.json (not a run directory, or the run did not finish; \`infermeter analyze\` recomputes from records.jsonl)`);
  const result = readJsonFile(resultPath);
  const unreadable = unreadableResultSchema(result);
  if (unreadable) throw new UserError(`${resultPath}: ${unreadable}`);
  return { dir, result: result as R, spec: readSpec(dir), records: readRunRecords(dir, o) };
}

export interface PartialRun<R> {
  /** result.json when present and parseable (of a schema this build reads), else null. */
  result: R | null;
  /** spec.json as an object when present and parseable, else null. */
  spec: Record<string, unknown> | null;
}

/**
 * A run directory read leniently (an old, partial or killed run's folder: analyze recomputes from
 * its records): result.json and spec.json each when present, null when absent; a file that does
 * not parse is one `warn` line and taken as absent. A result.json of a schema this build does not
 * read is still refused (UserError), unless `schema: 'ignore'` (the dashboard's small reads).
 */
export function readPartialRun<R>(dir: string, o: { warn?: (line: string) => void; schema?: 'check' | 'ignore' } = {}): PartialRun<R> {
  const lenient = (path: string): unknown => {
    if (!existsSync(path)) return null;
    try {
      return readJsonFile(path);
    } catch {
      o.warn?.(`note: ${path} is not valid JSON; ignored`);
      return null;
    }
  };
  const resultPath = join(dir, 'result.json');
  const result = lenient(resultPath);
  if (result !== null && o.schema !== 'ignore') {
    const unreadable = unreadableResultSchema(result);
    if (unreadable) throw new UserError(`${resultPath}: ${unreadable}`);
  }
  const spec = lenient(join(dir, 'spec.json'));
  return {
    result: result !== null && typeof result === 'object' ? (result as R) : null,
    spec: spec !== null && typeof spec === 'object' && !Array.isArray(spec) ? (spec as Record<string, unknown>) : null,
  };
}

/**
 * The one rule for "this directory holds a sweep" (docs/sweep-schema.md): a directory with
 * sweep.json and no result.json of its own. A run directory (result.json), a repeats directory
 * (repeats.json and repeat-k/ runs), an empty or missing folder are not sweeps.
 */
export function isSweepDir(dir: string): boolean {
  try {
    if (!statSync(dir).isDirectory()) return false;
  } catch {
    return false;
  }
  return existsSync(join(dir, 'sweep.json')) && !existsSync(join(dir, 'result.json'));
}

/** spec.json as an object, or null when the directory has none. */
export function readSpec(dir: string): Record<string, unknown> | null {
  const path = join(dir, 'spec.json');
  if (!existsSync(path)) return null;
  const spec = readJsonFile(path);
  return spec !== null && typeof spec === 'object' && !Array.isArray(spec) ? (spec as Record<string, unknown>) : null;
}

/** records.jsonl of `dir` as `o.records` says (default: read when present). */
export function readRunRecords(dir: string, o: RunBundleOptions = {}): RequestRecord[] {
  const mode = o.records ?? 'optional';
  if (mode === 'skip') return [];
  const path = join(dir, 'records.jsonl');
  if (!existsSync(path)) {
    if (mode === 'required') throw new UserError(`${dir}: no records.jsonl (the per-request records this needs)`);
    return [];
  }
  // Typed columns (record/record-columns.ts): report, export and compare of a long run hold ~60 bytes a record and under 2 a chunk time.
  return readRecordColumns(path, o.warn ? { warn: o.warn } : {}).records;
}
