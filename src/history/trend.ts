/**
 * A metric across the runs of one spec (same spec hash), oldest first, and whether the newest
 * comparable run regressed against the one before it. Comparable: a valid, uninterrupted run
 * with a value for the metric — an invalid run measured the client, not the server. When the
 * newest run itself is invalid the trend is refused (no verdict: "no regression" would be a
 * verdict on a run that measured nothing trustworthy) unless invalid runs are allowed, which
 * makes them comparable.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { UserError } from '../errors/user-error.js';
import { withHistory } from './history-db.js';
import { queryRows } from './history-query.js';
import { TREND_METRICS } from './trend-metrics.js';

export { TREND_METRICS };

export type TrendMetric = keyof typeof TREND_METRICS;

/** Accepts the column name, or a short form: `ttft_p99`, `ttft-p99`, `output-throughput`. */
export function trendMetric(name: string): TrendMetric {
  const n = name.trim().toLowerCase().replace(/-/g, '_');
  for (const cand of [n, `${n}_ms`]) if (Object.hasOwn(TREND_METRICS, cand)) return cand as TrendMetric;
  throw new UserError(`trend ${name}: unknown metric; one of ${Object.keys(TREND_METRICS).join(', ')}`);
}

export interface TrendPoint {
  run_id: string;
  started_at: string;
  value: number | null;
  valid: boolean | null;
  interrupted: boolean;
  comparable: boolean;
  /** The validity verdict's reasons (empty for a valid run). */
  reasons?: string[];
  /** Relative change against the previous comparable point (0.1 = +10 %), null for the first. */
  change: number | null;
}

export interface TrendVerdict {
  metric: TrendMetric;
  better: 'lower' | 'higher';
  spec_hash: string;
  threshold: number;
  points: TrendPoint[];
  /** How many points were comparable: below 2 there is no verdict. */
  comparable_runs: number;
  /** Set when the newest run is invalid and invalid runs were not allowed: no verdict is given. */
  refused: { run_id: string; reason: string } | null;
  /** Set when the newest comparable run is worse than the previous comparable one by more than `threshold`. */
  regression: { run_id: string; previous_run_id: string; value: number; previous: number; change: number } | null;
}

/** Pure: the changes between comparable points and the verdict on the newest one. */
export function assessTrend(
  metric: TrendMetric,
  specHash: string,
  rows: ReadonlyArray<{ run_id: string; started_at: string; value: number | null; valid: boolean | null; interrupted: boolean; reasons?: string[] }>,
  threshold: number,
  opts: { allowInvalid?: boolean } = {},
): TrendVerdict {
  const better = TREND_METRICS[metric];
  const allowInvalid = opts.allowInvalid === true;
  const newest = rows[rows.length - 1];
  const refused = newest && newest.valid === false && !allowInvalid ? { run_id: newest.run_id, reason: newest.reasons?.[0] ?? 'its validity verdict says invalid' } : null;
  let prev: TrendPoint | null = null;
  let last: TrendPoint | null = null;
  let beforeLast: TrendPoint | null = null;
  const points = rows.map((r): TrendPoint => {
    const comparable = r.value !== null && (r.valid !== false || allowInvalid) && !r.interrupted;
    const p: TrendPoint = { ...r, comparable, change: null };
    if (comparable) {
      if (prev && prev.value !== null && prev.value !== 0) p.change = (r.value! - prev.value) / Math.abs(prev.value);
      beforeLast = prev;
      last = p;
      prev = p;
    }
    return p;
  });
  let regression: TrendVerdict['regression'] = null;
  const a = beforeLast as TrendPoint | null;
  const b = last as TrendPoint | null;
  if (!refused && a && b && b.change !== null) {
    const worse = better === 'lower' ? b.change > threshold : b.change < -threshold;
    if (worse) regression = { run_id: b.run_id, previous_run_id: a.run_id, value: b.value!, previous: a.value!, change: b.change };
  }
  return { metric, better, spec_hash: specHash, threshold, points, comparable_runs: points.filter((p) => p.comparable).length, refused, regression };
}

export interface TrendQuery {
  /** A spec hash or its prefix; default: the spec of `run`, else of the newest run. */
  spec?: string | null;
  /** A run id whose spec to follow. */
  run?: string | null;
  limit?: number | null;
  threshold: number;
  /** Judge invalid runs too (--allow-invalid). */
  allowInvalid?: boolean;
}

/** A trend's rows as assessTrend reads them. */
export type TrendRow = Parameters<typeof assessTrend>[2][number];

/** The spec a query follows and its runs' values of `metric`, oldest first. */
export async function specRows(c: DuckDBConnection, metric: TrendMetric, q: Omit<TrendQuery, 'threshold'>): Promise<{ hash: string; rows: TrendRow[] }> {
  let hash: string;
  if (q.spec) {
    const found = await queryRows(c, `SELECT DISTINCT spec_hash FROM runs WHERE starts_with(spec_hash, ?)`, [q.spec]);
    if (found.length === 0) throw new UserError(`--spec ${q.spec}: no run in the history has that spec hash (see \`infermeter history\`)`);
    if (found.length > 1) throw new UserError(`--spec ${q.spec}: ambiguous, matches ${found.map((r) => r.spec_hash as string).join(', ')}`);
    hash = found[0]!.spec_hash as string;
  } else {
    const found = q.run
      ? await queryRows(c, `SELECT spec_hash FROM runs WHERE run_id = ?`, [q.run])
      : await queryRows(c, `SELECT spec_hash FROM runs WHERE kind = 'run' ORDER BY started_at DESC, run_id DESC LIMIT 1`);
    if (found.length === 0) throw new UserError(q.run ? `--run ${q.run}: not in the history (see \`infermeter history\`)` : 'trend: the history has no runs yet (run `infermeter run` or `infermeter history --reindex`)');
    hash = found[0]!.spec_hash as string;
  }
  const rows = await queryRows(
    c,
    // t orders the rows but is not read back (a timestamp per row costs more to convert than the text).
    `SELECT * EXCLUDE (t) FROM (SELECT run_id, strftime(started_at, '%Y-%m-%dT%H:%M:%SZ') AS started_at, started_at AS t, ${metric} AS value, valid, interrupted, validity_reasons
       FROM runs WHERE spec_hash = ? ORDER BY t DESC, run_id DESC ${q.limit ? `LIMIT ${Math.floor(q.limit)}` : ''}) ORDER BY t, run_id`,
    [hash],
  );
  return {
    hash,
    rows: rows.map((r) => ({
      run_id: r.run_id as string,
      started_at: r.started_at as string,
      value: typeof r.value === 'number' ? r.value : null,
      valid: r.valid as boolean | null,
      interrupted: r.interrupted === true,
      reasons: Array.isArray(r.validity_reasons) ? r.validity_reasons.map(String) : [],
    })),
  };
}

export function trend(resultsDir: string, metric: TrendMetric, q: TrendQuery): Promise<TrendVerdict> {
  return withHistory(resultsDir, { mode: 'read' }, async (c) => {
    const { hash, rows } = await specRows(c, metric, q);
    return assessTrend(metric, hash, rows, q.threshold, { allowInvalid: q.allowInvalid === true });
  });
}
