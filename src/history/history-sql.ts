/**
 * `infermeter sql`: any DuckDB query over the history and the runs' own records. Views:
 * - `runs`: the history table (read-only);
 * - `records`: every records.jsonl under the results folder, one row per request, with `run_id`
 *   (the run directory's name) and derived `ttft_ms`, `e2el_ms`, `tpot_ms` columns.
 * The query runs in a throwaway in-memory database, so it cannot change the history.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { UserError } from '../errors/user-error.js';
import { foldJournal, HISTORY_FILE, OFFLINE, RUN_COLUMNS, retryOnLock, serialized } from './history-db.js';
import type { JsonRow } from './history-query.js';

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

/** Defines `runs` and `records` on `c` (an in-memory database). */
async function defineViews(c: DuckDBConnection, resultsDir: string): Promise<void> {
  const dir = resolve(resultsDir);
  if (existsSync(join(dir, HISTORY_FILE))) {
    const file = join(dir, HISTORY_FILE);
    await retryOnLock(file, () => c.run(`ATTACH ${sqlString(file)} AS history (READ_ONLY)`));
    await c.run(`CREATE VIEW runs AS SELECT * FROM history.runs`);
  } else {
    await c.run(`CREATE TABLE runs (${RUN_COLUMNS.map(([n, t]) => `${n} ${t.replace(' PRIMARY KEY', '').replace(' NOT NULL', '')}`).join(', ')}, indexed_at TIMESTAMP)`);
  }
  const files = recordFiles(dir);
  const cols = RECORD_COLUMNS.map(([n]) => n).join(', ');
  const derived = `first_token_ms - sent_ms AS ttft_ms, end_ms - sent_ms AS e2el_ms,
    CASE WHEN output_tokens > 1 AND first_token_ms IS NOT NULL THEN (end_ms - first_token_ms) / (output_tokens - 1) END AS tpot_ms`;
  if (files.length === 0) {
    await c.run(`CREATE TABLE records_empty (run_id VARCHAR, ${RECORD_COLUMNS.map(([n, t]) => `${n} ${t}`).join(', ')}, filename VARCHAR)`);
    await c.run(`CREATE VIEW records AS SELECT run_id, ${cols}, ${derived} FROM records_empty`);
    return;
  }
  const columns = `{${RECORD_COLUMNS.map(([n, t]) => `${sqlString(n)}: ${sqlString(t)}`).join(', ')}}`;
  // ignore_errors: a killed run's truncated last line is skipped, as `infermeter analyze` does.
  await c.run(
    `CREATE VIEW records AS SELECT regexp_extract(filename, '([^/\\\\]+)[/\\\\]records\\.jsonl$', 1) AS run_id, ${cols}, ${derived}
     FROM read_json([${files.map(sqlString).join(', ')}], format = 'newline_delimited', columns = ${columns}, filename = true, ignore_errors = true)`,
  );
}

export interface SqlResult {
  columns: string[];
  rows: JsonRow[];
}

export async function runSql(resultsDir: string, query: string): Promise<SqlResult> {
  return withSqlDatabase(resultsDir, async (c) => {
    let reader;
    try {
      reader = await c.runAndReadAll(query);
    } catch (err) {
      throw new UserError(`sql: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`);
    }
    const columns = reader.columnNames();
    const rows = reader.getRowObjectsJson() as JsonRow[];
    return { columns, rows };
  });
}

async function withSqlDatabase<T>(resultsDir: string, fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
  await foldJournal(resultsDir);
  return serialized(async () => {
    const instance = await DuckDBInstance.create(':memory:', OFFLINE);
    const c = await instance.connect();
    try {
      await c.run(`SET TimeZone = 'UTC'`);
      await defineViews(c, resultsDir);
      return await fn(c);
    } finally {
      c.closeSync();
      instance.closeSync();
    }
  });
}
