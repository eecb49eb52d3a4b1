/**
 * `infermeter sql`: any DuckDB query over the history and the runs' own records. Views:
 * - `runs`: the history table (read-only);
 * - `records`: every records.jsonl under the results folder, one row per request, with `run_id`
 *   (the run directory's name) and a column per request metric with a SQL form (`ttft_ms`,
 *   `tpot_ms`, `e2el_ms`, …: metrics/sql-columns.ts), NULL outside the metric's population.
 * The query runs in a throwaway in-memory database, read-only by default: the views are defined
 * (the records read in, when the query names them) and then DuckDB's external access is switched
 * off and its configuration locked, so no statement can read or write a file, attach a database,
 * or install or load an extension; and only queries (SELECT and EXPLAIN statements) run.
 * `allowFiles` (`sql --allow-files`) gives back DuckDB's full power, on the user's say-so.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DuckDBInstance, StatementType, type DuckDBConnection, type DuckDBResultReader } from '@duckdb/node-api';
import { UserError } from '../errors/user-error.js';
import { foldJournal, HISTORY_FILE, OFFLINE, RUN_COLUMNS, retryOnLock, serialized } from './history-db.js';
import type { JsonRow } from './history-query.js';
import { requestMetricColumnsSql } from '../metrics/sql-columns.js';

/** The records.jsonl columns and their SQL types (docs/records.md), fixed so the view does not depend on sampling. */
const RECORD_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ['id', 'BIGINT'],
  ['phase', 'VARCHAR'],
  ['stage', 'INTEGER'],
  ['worker', 'INTEGER'],
  ['task', 'VARCHAR'],
  ['session', 'VARCHAR'],
  ['turn', 'INTEGER'],
  ['scheduled_ms', 'DOUBLE'],
  ['sent_ms', 'DOUBLE'],
  ['first_token_ms', 'DOUBLE'],
  ['chunk_ms', 'DOUBLE[]'],
  ['end_ms', 'DOUBLE'],
  ['prompt_tokens', 'INTEGER'],
  ['output_tokens', 'INTEGER'],
  ['requested_output_tokens', 'INTEGER'],
  ['token_source', 'VARCHAR'],
  ['client_prompt_tokens', 'INTEGER'],
  ['status', 'VARCHAR'],
  ['error_class', 'VARCHAR'],
  ['http_status', 'INTEGER'],
  ['finish_reason', 'VARCHAR'],
  ['error_message', 'VARCHAR'],
  ['output_text', 'VARCHAR'],
  // Reasoning models only (absent elsewhere: NULL).
  ['first_reasoning_ms', 'DOUBLE'],
  ['first_answer_ms', 'DOUBLE'],
  ['reasoning_tokens', 'INTEGER'],
  // Requests with an answer check only (docs/quality.md): {kind, pass, outcome, reason}.
  ['quality', 'STRUCT(kind VARCHAR, pass BOOLEAN, outcome VARCHAR, reason VARCHAR)'],
  // Retries (--retries) only: which attempt, and whether a later one superseded it.
  ['attempt', 'INTEGER'],
  ['retried', 'BOOLEAN'],
];

/** records.jsonl files one or two levels down (a run, or a stage of a sweep). */
export function recordFiles(resultsDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const n of names) {
      if (n.startsWith('.')) continue;
      const p = join(dir, n);
      if (n === 'records.jsonl' && depth > 0) out.push(p);
      else if (depth < 2 && statSync(p, { throwIfNoEntry: false })?.isDirectory()) walk(p, depth + 1);
    }
  };
  walk(resultsDir, 0);
  return out.sort();
}

const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * How `records` is defined: a view over the files (read at query time: `--allow-files`), a table
 * read in before external access is switched off (read-only, when the query names `records`),
 * or an empty table (read-only, when it does not: nothing is read for a query on `runs` alone).
 */
type RecordsAs = 'view' | 'table' | 'empty';

/** Defines `runs` and `records` on `c` (an in-memory database). */
async function defineViews(c: DuckDBConnection, resultsDir: string, recordsAs: RecordsAs): Promise<void> {
  const dir = resolve(resultsDir);
  if (existsSync(join(dir, HISTORY_FILE))) {
    const file = join(dir, HISTORY_FILE);
    await retryOnLock(file, () => c.run(`ATTACH ${sqlString(file)} AS history (READ_ONLY)`));
    await c.run(`CREATE VIEW runs AS SELECT * FROM history.runs`);
  } else {
    await c.run(`CREATE TABLE runs (${RUN_COLUMNS.map(([n, t]) => `${n} ${t.replace(' PRIMARY KEY', '').replace(' NOT NULL', '')}`).join(', ')}, indexed_at TIMESTAMP)`);
  }
  const files = recordsAs === 'empty' ? [] : recordFiles(dir);
  const cols = RECORD_COLUMNS.map(([n]) => n).join(', ');
  // The metric columns come from the registry's definitions, population rule included.
  const derived = requestMetricColumnsSql();
  if (files.length === 0) {
    await c.run(`CREATE TABLE records_empty (run_id VARCHAR, ${RECORD_COLUMNS.map(([n, t]) => `${n} ${t}`).join(', ')}, filename VARCHAR)`);
    await c.run(`CREATE VIEW records AS SELECT run_id, ${cols}, ${derived} FROM records_empty`);
    return;
  }
  const columns = `{${RECORD_COLUMNS.map(([n, t]) => `${sqlString(n)}: ${sqlString(t)}`).join(', ')}}`;
  // ignore_errors: a killed run's truncated last line is skipped, as `infermeter analyze` does.
  await c.run(
    `CREATE ${recordsAs === 'view' ? 'VIEW' : 'TABLE'} records AS SELECT regexp_extract(filename, '([^/\\\\]+)[/\\\\]records\\.jsonl$', 1) AS run_id, ${cols}, ${derived}
     FROM read_json([${files.map(sqlString).join(', ')}], format = 'newline_delimited', columns = ${columns}, filename = true, ignore_errors = true)`,
  );
}

export interface SqlResult {
  columns: string[];
  rows: JsonRow[];
}

export interface SqlOptions {
  /** DuckDB's full power: files, ATTACH, COPY, extensions (`sql --allow-files`). */
  allowFiles?: boolean;
}

/** What a read-only query may be: DESCRIBE, SHOW, SUMMARIZE, PRAGMA and FROM-first queries are SELECTs too. */
const READ_ONLY_STATEMENTS = new Set<StatementType>([StatementType.SELECT, StatementType.EXPLAIN]);
const FULL_POWER = '--allow-files runs it with DuckDB\'s full power';

export async function runSql(resultsDir: string, query: string, opts: SqlOptions = {}): Promise<SqlResult> {
  const allowFiles = opts.allowFiles === true;
  // A query that never names `records` need not pay for reading every run's records in.
  const recordsAs: RecordsAs = allowFiles ? 'view' : /records/i.test(query) ? 'table' : 'empty';
  return withSqlDatabase(resultsDir, recordsAs, !allowFiles, async (c) => {
    const reader = allowFiles ? await c.runAndReadAll(query).catch(sqlError) : await runReadOnly(c, query);
    const columns = reader.columnNames();
    const rows = reader.getRowObjectsJson() as JsonRow[];
    return { columns, rows };
  });
}

/** Every statement of `query` prepared first, refused unless it is a query; then run in order, the last one's rows returned. */
async function runReadOnly(c: DuckDBConnection, query: string): Promise<DuckDBResultReader> {
  const statements = await c.extractStatements(query).catch(sqlError);
  if (statements.count === 0) throw new UserError('sql: no statement in the query');
  const prepared = [];
  for (let i = 0; i < statements.count; i++) {
    const p = await statements.prepare(i).catch(sqlError);
    if (!READ_ONLY_STATEMENTS.has(p.statementType)) {
      const kind = p.statementType === StatementType.LOAD ? 'INSTALL or LOAD' : StatementType[p.statementType];
      throw new UserError(`sql: only queries run over the history (SELECT, WITH, FROM, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN); ${kind} is refused (${FULL_POWER})`);
    }
    prepared.push(p);
  }
  let last: DuckDBResultReader | null = null;
  for (const p of prepared) last = await p.runAndReadAll().catch(sqlError);
  return last!;
}

/** DuckDB's error as one line; a refused file or extension says how to allow it. */
function sqlError(err: unknown): never {
  const line = (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
  const refused = /^Permission Error|disabled (by|through) configuration|configuration has been locked/.test(line);
  throw new UserError(`sql: ${line}${refused ? ` — the query runs read-only, without files or extensions (${FULL_POWER})` : ''}`);
}

/** The settings of a read-only `sql` database: no extension is installed or loaded, by name or on its own. */
const READ_ONLY_CONFIG = { ...OFFLINE, autoload_known_extensions: 'false', allow_community_extensions: 'false' };

async function withSqlDatabase<T>(resultsDir: string, recordsAs: RecordsAs, readOnly: boolean, fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
  await foldJournal(resultsDir);
  return serialized(async () => {
    const instance = await DuckDBInstance.create(':memory:', readOnly ? READ_ONLY_CONFIG : OFFLINE);
    const c = await instance.connect();
    try {
      await c.run(`SET TimeZone = 'UTC'`);
      await defineViews(c, resultsDir, recordsAs);
      if (readOnly) {
        // After the views: the history is attached and the records read in, so nothing needs a file again.
        await c.run(`SET enable_external_access = false`);
        await c.run(`SET lock_configuration = true`);
      }
      return await fn(c);
    } finally {
      c.closeSync();
      instance.closeSync();
    }
  });
}
