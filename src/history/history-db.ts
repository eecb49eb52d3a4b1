/**
 * The run history: one DuckDB file, `<results>/history.duckdb` (format: docs/history.md), and
 * its journal, `<results>/.history-pending/` (one JSON row per file).
 *
 * A finishing run does not open the database: it writes its row to the journal (written aside
 * and renamed, so no lock is needed and no reader sees half a row), which keeps DuckDB out of
 * every run's process. Whoever opens the history folds the journal in first — a writer before
 * its own statement, a reader by opening the file for writing once before reading — so every
 * reader sees every finished run.
 *
 * DuckDB lets one process at a time open a file for writing (a file lock), and readers are
 * locked out while it does. Every use here is short — open, one statement or transaction,
 * close — so a process that meets the lock waits and retries (with jitter) for a bounded time.
 * Within one process the uses are queued, since two instances on one file would not see each
 * other's lock.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { HISTORY_FILE, hasJournal, PENDING_DIR } from './history-journal.js';
import { UserError } from '../errors/user-error.js';
import type { HistoryRow } from './history-row.js';

export { HISTORY_FILE };
/** Journal rows the table refused, kept for a person to look at (docs/history.md). */
export const REJECTED_DIR = '.history-rejected';
/** The history format; bump on any breaking change of the tables below (docs/history.md). */
export const HISTORY_SCHEMA = 'infermeter.history/1';

/** Column name → SQL type, in table order: the one definition of the `runs` table. */
export const RUN_COLUMNS: ReadonlyArray<readonly [keyof HistoryRow, string]> = [
  ['run_id', 'VARCHAR PRIMARY KEY'],
  ['kind', 'VARCHAR NOT NULL'],
  ['dir', 'VARCHAR NOT NULL'],
  ['name', 'VARCHAR'],
  ['started_at', 'TIMESTAMP NOT NULL'],
  ['ended_at', 'TIMESTAMP'],
  ['driver', 'VARCHAR'],
  ['interrupted', 'BOOLEAN'],
  ['spec_hash', 'VARCHAR NOT NULL'],
  ['model', 'VARCHAR'],
  ['target', 'VARCHAR'],
  ['endpoint', 'VARCHAR'],
  ['simulated', 'BOOLEAN'],
  ['load_shape', 'VARCHAR'],
  ['request_rate', 'DOUBLE'],
  ['concurrency', 'INTEGER'],
  ['max_concurrency', 'INTEGER'],
  ['num_prompts', 'INTEGER'],
  ['duration_s', 'DOUBLE'],
  ['requests', 'INTEGER'],
  ['ok', 'INTEGER'],
  ['failed', 'INTEGER'],
  ['failure_rate', 'DOUBLE'],
  ['request_throughput', 'DOUBLE'],
  ['output_throughput', 'DOUBLE'],
  ['ttft_p50_ms', 'DOUBLE'],
  ['ttft_p99_ms', 'DOUBLE'],
  ['tpot_p50_ms', 'DOUBLE'],
  ['tpot_p99_ms', 'DOUBLE'],
  ['itl_p50_ms', 'DOUBLE'],
  ['itl_p99_ms', 'DOUBLE'],
  ['e2el_p50_ms', 'DOUBLE'],
  ['e2el_p99_ms', 'DOUBLE'],
  ['goodput_request_per_s', 'DOUBLE'],
  ['goodput_attained', 'DOUBLE'],
  ['valid', 'BOOLEAN'],
  ['validity_reasons', 'VARCHAR[]'],
  ['slo_pass', 'BOOLEAN'],
  ['slo', 'JSON'],
  ['metrics', 'JSON'],
  ['result_schema', 'VARCHAR'],
  ['infermeter_version', 'VARCHAR'],
  // Added within infermeter.history/1 (answer quality, docs/quality.md): older files get them on open.
  ['accuracy', 'DOUBLE'],
  ['accuracy_ci_low', 'DOUBLE'],
  ['accuracy_ci_high', 'DOUBLE'],
  ['hallucination_rate', 'DOUBLE'],
  ['format_compliance', 'DOUBLE'],
  ['code_pass_rate', 'DOUBLE'],
  ['citation_correctness', 'DOUBLE'],
  ['refusal_rate', 'DOUBLE'],
  ['over_refusal_rate', 'DOUBLE'],
  ['successful_per_s', 'DOUBLE'],
  ['cost_per_success', 'DOUBLE'],
  ['quality', 'JSON'],
  // Added within infermeter.history/1 (environment fingerprint, docs/result-schema.md §environment).
  ['engine', 'VARCHAR'],
  ['engine_version', 'VARCHAR'],
  ['gpu_model', 'VARCHAR'],
  ['gpu_count', 'INTEGER'],
  ['fingerprint', 'JSON'],
];

export const DDL = [
  `CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR)`,
  `CREATE TABLE IF NOT EXISTS runs (${RUN_COLUMNS.map(([c, t]) => `${c} ${t}`).join(', ')}, indexed_at TIMESTAMP DEFAULT current_timestamp)`,
  // A history written before a column was added gets it (NULL for the runs already in it).
  ...RUN_COLUMNS.filter(([, t]) => !t.includes('PRIMARY KEY') && !t.includes('NOT NULL')).map(([c, t]) => `ALTER TABLE runs ADD COLUMN IF NOT EXISTS ${c} ${t}`),
];

/** Whether the file's `runs` table lacks a column this version writes (then it is opened once for writing to add them). */
async function missingColumns(c: DuckDBConnection): Promise<boolean> {
  const have = new Set((await c.runAndReadAll(`SELECT column_name FROM information_schema.columns WHERE table_name = 'runs'`)).getRowObjectsJson().map((r) => String(r.column_name)));
  return RUN_COLUMNS.some(([name]) => !have.has(name));
}

/** How long a process waits for another one's lock before it gives up (a write then goes to .history-pending/). */
const LOCK_WAIT_MS = 10_000;

/** The history stayed locked by another process for the whole wait: bad luck or a stuck process, told in one line (exit 2). */
export class HistoryBusyError extends UserError {}

function isLockError(err: unknown): boolean {
  return err instanceof Error && /Could not set lock|Conflicting lock/i.test(err.message);
}

/** The lock's holder as DuckDB's lock error names it ("… is held in /usr/bin/node (PID 1234)"), or null when it does not. */
export function lockHolder(err: unknown): string | null {
  const m = /held in (.+?) \(PID (\d+)\)/.exec(err instanceof Error ? err.message : String(err));
  return m ? `process ${m[2]} (${m[1]})` : null;
}

/** A lock held this long gets one line saying what is waited for (shorter waits are the journal's ordinary contention). */
const LOCK_NOTICE_MS = 1_000;

let queue: Promise<unknown> = Promise.resolve();
/** Runs `fn` after every earlier history use of this process has finished. */
export function serialized<T>(fn: () => Promise<T>): Promise<T> {
  const next = queue.then(fn, fn);
  queue = next.catch(() => undefined);
  return next;
}

/** Runs `fn` (an open or an ATTACH) until it stops meeting another process's lock, for at most `waitMs`. */
export async function retryOnLock<T>(what: string, fn: () => Promise<T>, waitMs: number = LOCK_WAIT_MS): Promise<T> {
  const start = Date.now();
  const deadline = start + waitMs;
  let told = false;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!isLockError(err)) throw err;
      const holder = lockHolder(err) ?? 'another process';
      if (Date.now() >= deadline) {
        // On a busy machine one attempt can outlast the whole wait: the notice still comes first.
        if (!told) warn(`${what} is locked by ${holder}; waiting up to ${waitMs / 1000} s`);
        throw new HistoryBusyError(`${what} stayed locked by ${holder} for ${waitMs / 1000} s; try again when it has finished${holder === 'another process' ? '' : ' (or stop it)'}`);
      }
      if (!told && Date.now() - start >= Math.min(LOCK_NOTICE_MS, waitMs / 2)) {
        told = true;
        warn(`${what} is locked by ${holder}; waiting up to ${waitMs / 1000} s`);
      }
      const backoff = Math.min(500, 10 * 2 ** attempt) * (0.5 + Math.random());
      await new Promise((r) => setTimeout(r, backoff));
    }
  }
}

/** Nothing is ever downloaded: DuckDB would otherwise fetch a missing extension from the network. */
export const OFFLINE = { autoinstall_known_extensions: 'false', autoload_known_extensions: 'true' };

export interface OpenOptions {
  /** 'write' creates the file and folds in pending rows; 'read' opens it read-only (an empty in-memory history when missing). */
  mode: 'read' | 'write';
  lockWaitMs?: number;
  /** false: a reader that never writes — the journal is not folded in, an older file not upgraded, a corrupt one not rebuilt (a run's report, which must not write the history). */
  fold?: boolean;
}

/** Runs a read on a connection of a process-long reader (history-pool.ts), by results folder. */
type SharedRead = <T>(fn: (c: DuckDBConnection) => Promise<T>) => Promise<T>;
const sharedReads = new Map<string, SharedRead>();

/** From now on this process's reads of `resultsDir` go through `read` (the dashboard's pool); null: back to one open per read. */
export function shareHistoryReads(resultsDir: string, read: SharedRead | null): void {
  if (read) sharedReads.set(resolve(resultsDir), read);
  else sharedReads.delete(resolve(resultsDir));
}

/**
 * Opens the history of `resultsDir` (the journal folded in first), runs `fn` on a connection and
 * closes it again; a read of a folder whose reads are shared (shareHistoryReads) runs on the
 * shared reader's connection instead.
 */
export function withHistory<T>(resultsDir: string, opts: OpenOptions, fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
  const shared = opts.mode === 'read' ? sharedReads.get(resolve(resultsDir)) : undefined;
  return shared ? shared(fn) : withOwnHistory(resultsDir, opts, fn);
}

/** withHistory with an instance of its own, whatever is shared. */
export function withOwnHistory<T>(resultsDir: string, opts: OpenOptions, fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
  return serialized(async () => {
    if (opts.mode === 'read' && opts.fold !== false && hasJournal(resultsDir)) {
      try {
        await openHistory(resultsDir, { ...opts, mode: 'write' }, async () => undefined, true);
      } catch (err) {
        // A reader that cannot write (a read-only results folder, a journal that is not a folder)
        // still reads what the file holds; a lock held too long stays an error, as for any reader.
        if (err instanceof HistoryBusyError) throw err;
        warn(`the journal (${PENDING_DIR}/) could not be folded in, so runs waiting there are not shown: ${oneLine(err)}`);
      }
    }
    return openHistory(resultsDir, opts, fn, opts.fold !== false);
  });
}

/** Where history problems that do not stop the command go: one line each (the CLI points it at its stderr). */
let warningSink: (line: string) => void = (line) => process.stderr.write(line);
export function setHistoryWarningSink(write: (line: string) => void): void {
  warningSink = write;
}

function warn(message: string): void {
  warningSink(`warning: history: ${message}\n`);
}

function oneLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
}

/** Folds the journal into the history now (for a reader that opens the file by other means, as `sql` does). */
export function foldJournal(resultsDir: string): Promise<void> {
  return serialized(async () => {
    if (hasJournal(resultsDir)) await openHistory(resultsDir, { mode: 'write' }, async () => undefined, true);
  });
}

async function openHistory<T>(resultsDir: string, opts: OpenOptions, fn: (c: DuckDBConnection) => Promise<T>, mayUpgrade: boolean): Promise<T> {
  const path = join(resultsDir, HISTORY_FILE);
  const exists = existsSync(path);
  if (opts.mode === 'write') mkdirSync(resultsDir, { recursive: true });
  const inMemory = opts.mode === 'read' && !exists;
  let instance: DuckDBInstance;
  try {
    instance = inMemory
      ? await DuckDBInstance.create(':memory:', OFFLINE)
      : await retryOnLock(path, () => DuckDBInstance.create(path, opts.mode === 'read' ? { ...OFFLINE, access_mode: 'READ_ONLY' } : OFFLINE), opts.lockWaitMs);
  } catch (err) {
    if (!isCorruptError(err) || !mayUpgrade) throw err;
    await rebuildCorrupt(resultsDir, path, err);
    return openHistory(resultsDir, opts, fn, false);
  }
  const c = await instance.connect();
  let upgrade = false;
  let removeFolded: (() => Promise<void>) | null = null;
  try {
    await c.run(`SET TimeZone = 'UTC'`);
    if (opts.mode === 'write' || inMemory) {
      for (const sql of DDL) await c.run(sql);
      await c.run(`INSERT OR REPLACE INTO meta VALUES ('schema', ?)`, [HISTORY_SCHEMA]);
    } else {
      await checkSchema(c, path);
      upgrade = mayUpgrade && (await missingColumns(c));
    }
    if (!upgrade) {
      if (opts.mode === 'write') removeFolded = await foldPending(c, resultsDir);
      return await fn(c);
    }
  } finally {
    c.closeSync();
    instance.closeSync();
    // The folded rows are committed: their files go (after the close, so the file is not held meanwhile).
    await removeFolded?.();
  }
  // Written by an earlier version: add the new columns once (a short write), then read as usual.
  await openHistory(resultsDir, { ...opts, mode: 'write' }, async () => undefined, false);
  return openHistory(resultsDir, opts, fn, false);
}

function isCorruptError(err: unknown): boolean {
  return err instanceof Error && /not a valid DuckDB database file|corrupt|checksum|invalid (database|block)/i.test(err.message);
}

/**
 * A history file DuckDB cannot open is derived data: moved aside (kept, for whoever wants to look
 * at it) and rebuilt from the run directories, which hold everything it indexed, with one line.
 */
async function rebuildCorrupt(resultsDir: string, path: string, cause: unknown): Promise<void> {
  const aside = `${path}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  try {
    renameSync(path, aside);
  } catch (err) {
    throw new UserError(`${path}: not a readable history database (${oneLine(cause)}), and it cannot be moved aside (${(err as NodeJS.ErrnoException).code ?? oneLine(err)}); move or delete it, then \`infermeter history --reindex\``);
  }
  const { collectRows } = await import('./history-index.js');
  const { rows, skipped } = collectRows(resultsDir);
  warn(`${path} was not a readable database (${oneLine(cause)}): moved aside to ${aside}; rebuilt from ${rows.length} rows of the run directories${skipped.length > 0 ? ` (${skipped.length} unreadable, skipped)` : ''}`);
  await openHistory(resultsDir, { mode: 'write' }, (c) => upsertRows(c, rows), false);
}

export async function checkSchema(c: DuckDBConnection, path: string): Promise<void> {
  const rows = (await c.runAndReadAll(`SELECT value FROM meta WHERE key = 'schema'`)).getRowObjectsJson();
  const schema = rows[0]?.value;
  if (schema !== HISTORY_SCHEMA) throw new Error(`${path}: history format ${String(schema)}, this infermeter reads ${HISTORY_SCHEMA}`);
}

/** The staging table's type of a column: numbers as DOUBLE (cast on insert, as a bound JS number was), booleans, the rest as text cast in the INSERT. */
function stageType(type: string): 'DOUBLE' | 'BOOLEAN' | 'VARCHAR' {
  if (/^(DOUBLE|INTEGER)\b/.test(type)) return 'DOUBLE';
  return type.startsWith('BOOLEAN') ? 'BOOLEAN' : 'VARCHAR';
}

/** The SQL that turns a staged column into the table's type (timestamps in UTC, JSON text, a list given as JSON text). */
function fromStage(name: string, type: string): string {
  if (type.startsWith('TIMESTAMP')) return `${name}::TIMESTAMPTZ`;
  if (type === 'JSON') return `${name}::JSON`;
  if (type === 'VARCHAR[]') return `${name}::JSON::VARCHAR[]`;
  return name;
}

const STAGE_TABLE = 'infermeter_pending_rows';

/**
 * Inserts or replaces rows (a re-analysed run replaces its row) in one statement: the rows go
 * into a temporary table through DuckDB's appender, then one `INSERT OR REPLACE … SELECT` moves
 * them. One statement per row cost 30–46 ms of CPU each, a multi-row VALUES statement of 256
 * rows ~0.9 ms per row, the appender ~0.15 ms (docs/performance.md §8). A value of the wrong
 * kind for its column throws (the fold then takes its rows one by one and moves the refused one aside).
 */
export async function upsertRows(c: DuckDBConnection, rows: readonly HistoryRow[]): Promise<void> {
  if (rows.length === 0) return;
  // One statement cannot replace a key twice: the last row of a run wins, as row-by-row upserts gave.
  const last = [...new Map(rows.map((r) => [r.run_id, r])).values()];
  const cols = RUN_COLUMNS.map(([name, type]) => ({ name, stage: stageType(type) }));
  await c.run(`CREATE OR REPLACE TEMP TABLE ${STAGE_TABLE} (${cols.map((col) => `${col.name} ${col.stage}`).join(', ')})`);
  try {
    const appender = await c.createAppender(STAGE_TABLE);
    try {
      for (const row of last) {
        for (const { name, stage } of cols) {
          const v: unknown = row[name];
          // A journal row written before a column was added lacks it: NULL, as for the rows already in the table.
          if (v === null || v === undefined) appender.appendNull();
          else if (stage === 'DOUBLE' && typeof v === 'number') appender.appendDouble(v);
          else if (stage === 'BOOLEAN' && typeof v === 'boolean') appender.appendBoolean(v);
          // Lists go in as JSON text: an empty JS array has no element type to bind.
          else if (stage === 'VARCHAR' && (typeof v === 'string' || Array.isArray(v))) appender.appendVarchar(typeof v === 'string' ? v : JSON.stringify(v));
          else throw new Error(`run ${String(row.run_id)}: column ${name} holds ${JSON.stringify(v)?.slice(0, 40)}, not a ${stage === 'DOUBLE' ? 'number' : stage === 'BOOLEAN' ? 'boolean' : 'text'}`);
        }
        appender.endRow();
      }
    } catch (err) {
      try {
        appender.closeSync(); // a row cut short may make the close throw too: the first error is the one to tell
      } catch {
        // told below
      }
      throw err;
    }
    appender.closeSync(); // flushes
    await c.run('BEGIN TRANSACTION');
    try {
      await c.run(`INSERT OR REPLACE INTO runs (${cols.map((col) => col.name).join(', ')}) SELECT ${RUN_COLUMNS.map(([name, type]) => fromStage(name, type)).join(', ')} FROM ${STAGE_TABLE}`);
      await c.run('COMMIT');
    } catch (err) {
      await c.run('ROLLBACK');
      throw err;
    }
  } finally {
    await c.run(`DROP TABLE IF EXISTS ${STAGE_TABLE}`);
  }
}

/** Journal files removed at once after a fold. */
const REMOVE_AT_ONCE = 16;

/** Upserts the journal's rows; returns what removes their files (a row rewritten meanwhile stays), to call after the database is closed. */
async function foldPending(c: DuckDBConnection, resultsDir: string): Promise<() => Promise<void>> {
  const dir = join(resultsDir, PENDING_DIR);
  if (!existsSync(dir)) return async () => undefined;
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  const rows: HistoryRow[] = [];
  const folded: Array<[string, string]> = [];
  for (const f of files) {
    let text: string;
    try {
      text = readFileSync(join(dir, f), 'utf8');
    } catch {
      continue; // removed meanwhile by another process's fold, or unreadable: left as it is
    }
    try {
      rows.push(JSON.parse(text) as HistoryRow);
      folded.push([f, text]);
    } catch (err) {
      // A cut or hand-broken row would otherwise wait in the journal forever, unseen.
      reject(resultsDir, f, `is not a JSON row (${oneLine(err)})`);
    }
  }
  try {
    await upsertRows(c, rows);
  } catch {
    // One row the table refuses (hand-edited, or from another version) must not keep every
    // other row out, nor fail every reader from now on: rows go in one by one, and a refused
    // one moves aside to REJECTED_DIR (`history --reindex` rebuilds it from its run directory).
    for (let i = folded.length - 1; i >= 0; i--) {
      try {
        await upsertRows(c, [rows[i]!]);
      } catch (err) {
        const [f] = folded[i]!;
        folded.splice(i, 1);
        reject(resultsDir, f, `could not be indexed (${oneLine(err)})`);
      }
    }
  }
  return async () => {
    // A few at a time: one by one, each unlink of a file long written back waited ~2.5 ms on a
    // busy disk (2,000 rows: 5–7 s); 16 at once took 0.4–0.5 s (docs/performance.md §8).
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < folded.length) {
        const [f, text] = folded[next++]!;
        // A run re-analysed meanwhile rewrote its row: that newer row stays for the next fold.
        try {
          if ((await readFile(join(dir, f), 'utf8')) === text) await rm(join(dir, f), { force: true });
        } catch {
          // already gone
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(REMOVE_AT_ONCE, folded.length) }, worker));
    try {
      rmdirSync(dir); // only when empty: then readers need not open the history for writing to fold it
    } catch {
      // not empty (an unreadable row is left for a person), or another process removed it
    }
  };
}

/** Moves a journal row the history cannot take to REJECTED_DIR, with one line (`history --reindex` rebuilds its run's row from the run directory). */
function reject(resultsDir: string, file: string, why: string): void {
  mkdirSync(join(resultsDir, REJECTED_DIR), { recursive: true });
  try {
    renameSync(join(resultsDir, PENDING_DIR, file), join(resultsDir, REJECTED_DIR, file));
  } catch {
    return; // another process's fold moved it first (and said so)
  }
  warn(`row ${PENDING_DIR}/${file} ${why}: moved to ${REJECTED_DIR}/ (\`infermeter history --reindex\` indexes its run again)`);
}
