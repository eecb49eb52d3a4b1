/** Reading the history: the runs list with its filters. */
import type { DuckDBConnection } from '@duckdb/node-api';
import { UserError } from '../errors/user-error.js';
import { withHistory } from './history-db.js';
import { fingerprintFieldNames, isFingerprintField } from '../analysis/environment.js';

export interface RunFilter {
  model?: string | null;
  /** Only runs started at or after this instant. */
  since?: Date | null;
  /** Only runs whose spec hash starts with this. */
  spec?: string | null;
  kind?: 'run' | 'sweep' | null;
  limit?: number | null;
  /** Only runs whose environment fingerprint has these values (`--where engine_version=0.6.3`); all must hold. */
  where?: readonly FingerprintCondition[];
}

export interface FingerprintCondition {
  field: string;
  value: string;
}

/**
 * `--where FIELD=VALUE` (repeatable): a fingerprint field (analysis/environment.ts: engine,
 * engine_version, gpu_model, engine_settings.block_size, …) and the value it must have, compared
 * as text, exactly. A group name (gpu) is not one field, so it is refused here (`engine` is the field).
 */
export function parseWhere(values: readonly string[]): FingerprintCondition[] {
  return values.map((text) => {
    const eq = text.indexOf('=');
    const field = eq > 0 ? text.slice(0, eq).trim() : '';
    if (eq <= 0 || !isFingerprintField(field)) {
      throw new UserError(`--where ${text}: give FIELD=VALUE with a fingerprint field (${fingerprintFieldNames()})`);
    }
    return { field, value: text.slice(eq + 1).trim() };
  });
}

/** `--since`: a duration back from now (`30m`, `12h`, `7d`, `2w`) or a date/time (`2026-11-01`, ISO 8601). */
export function parseSince(text: string, now: Date = new Date()): Date {
  const m = /^(\d+(?:\.\d+)?)\s*(m|min|h|d|w)$/i.exec(text.trim());
  if (m) {
    const unitMs = { m: 60e3, min: 60e3, h: 3600e3, d: 86400e3, w: 7 * 86400e3 }[m[2]!.toLowerCase() as 'm'];
    return new Date(now.getTime() - Number(m[1]) * unitMs);
  }
  const d = new Date(text);
  if (/^\d{4}-\d{2}-\d{2}/.test(text) && !Number.isNaN(d.getTime())) return d;
  throw new UserError(`--since ${text}: give a duration back from now (30m, 12h, 7d, 2w) or a date (2026-11-01, 2026-11-01T08:00:00Z)`);
}

/** A row as plain JSON values (timestamps as ISO text in UTC, BIGINTs as numbers). */
export type JsonRow = Record<string, unknown>;

export async function queryRows(c: DuckDBConnection, sql: string, params: unknown[] = []): Promise<JsonRow[]> {
  const reader = await c.runAndReadAll(sql, params as never);
  const rows = reader.getRowObjectsJson() as JsonRow[];
  // Every row has the result's columns: only the integer ones are looked at (in place, so each row keeps its column order).
  const integers = rows.length > 0 ? Object.keys(rows[0]!).filter(isIntegerColumn) : [];
  for (const r of rows) {
    for (const k of integers) {
      const v = r[k];
      if (typeof v === 'string' && /^-?\d+$/.test(v) && Math.abs(Number(v)) < 2 ** 53) r[k] = Number(v);
    }
  }
  return rows;
}

const INTEGER_COLUMNS = new Set(['concurrency', 'max_concurrency', 'num_prompts', 'requests', 'ok', 'failed', 'gpu_count']);
function isIntegerColumn(name: string): boolean {
  return INTEGER_COLUMNS.has(name) || name === 'count' || name === 'n';
}

/** The columns `history` shows and `--json` prints (every column but the JSON blobs). */
export const LIST_COLUMNS = `run_id, kind, dir, name, strftime(started_at, '%Y-%m-%dT%H:%M:%SZ') AS started_at, driver, interrupted, spec_hash, model, target, endpoint,
  load_shape, request_rate, concurrency, max_concurrency, num_prompts, duration_s, requests, ok, failed, failure_rate,
  request_throughput, output_throughput, ttft_p50_ms, ttft_p99_ms, tpot_p50_ms, tpot_p99_ms, itl_p50_ms, itl_p99_ms,
  e2el_p50_ms, e2el_p99_ms, goodput_request_per_s, goodput_attained, valid, validity_reasons, slo_pass,
  accuracy, accuracy_ci_low, accuracy_ci_high, hallucination_rate, format_compliance, code_pass_rate, citation_correctness,
  refusal_rate, over_refusal_rate, successful_per_s, cost_per_success, engine, engine_version, gpu_model, gpu_count`;

/** Runs, newest first. */
export function listRuns(resultsDir: string, f: RunFilter = {}): Promise<JsonRow[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (f.model) {
    where.push(`model ILIKE ?`);
    params.push(f.model.includes('%') ? f.model : `%${f.model}%`);
  }
  if (f.since) {
    where.push(`started_at >= ?::TIMESTAMPTZ`);
    params.push(f.since.toISOString());
  }
  if (f.spec) {
    where.push(`starts_with(spec_hash, ?)`);
    params.push(f.spec);
  }
  if (f.kind) {
    where.push(`kind = ?`);
    params.push(f.kind);
  }
  for (const w of f.where ?? []) {
    // The field name goes in as a bound JSON path (quoted: engine_settings keys hold dots), never into the SQL text.
    where.push(`json_extract_string(fingerprint, ?) = ?`);
    params.push(`$."${w.field}"`, w.value);
  }
  const sql = `SELECT ${LIST_COLUMNS} FROM runs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY runs.started_at DESC, run_id DESC ${f.limit ? `LIMIT ${Math.floor(f.limit)}` : ''}`;
  return withHistory(resultsDir, { mode: 'read' }, (c) => queryRows(c, sql, params));
}

/** One run's row with its `quality` object (parsed), or null when the history has no such run. */
export async function runQualityOf(resultsDir: string, runId: string): Promise<{ dir: string | null; quality: unknown } | null> {
  const rows = await withHistory(resultsDir, { mode: 'read' }, (c) => queryRows(c, `SELECT dir, quality FROM runs WHERE run_id = ? LIMIT 1`, [runId]));
  const row = rows[0];
  if (!row) return null;
  const q = row.quality;
  return { dir: typeof row.dir === 'string' ? row.dir : null, quality: typeof q === 'string' ? (JSON.parse(q) as unknown) : (q ?? null) };
}
