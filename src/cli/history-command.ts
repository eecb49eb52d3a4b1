/**
 * `infermeter history`, `trend` and `sql`: reading the run history (docs/history.md).
 */
import { join } from 'node:path';
import { EXIT_CODES } from '../errors/exit-codes.js';
import { UserError } from '../errors/user-error.js';
import { reindex } from '../history/history-index.js';
import { listRuns, parseSince, parseWhere, type JsonRow } from '../history/history-query.js';
import { runSql } from '../history/history-sql.js';
import { trend, trendMetric, type TrendMetric } from '../history/trend.js';
import { trendBand, type BandJudgement } from '../history/history-band.js';
import { textTable } from '../util/text-table.js';
import type { CliIo } from './io.js';
import { setHistoryWarningSink } from '../history/history-db.js';

export interface HistoryOpts {
  resultsDir: string;
  model?: string;
  since?: string;
  limit?: string;
  spec?: string;
  /** --where FIELD=VALUE, repeatable: fingerprint conditions. */
  where?: string[];
  json?: boolean;
  reindex?: boolean;
}

const fmt = (v: unknown, digits = 1): string => (typeof v === 'number' ? v.toFixed(digits) : '—');

function positiveInt(flag: string, text: string | undefined): number | null {
  if (text === undefined) return null;
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new UserError(`${flag} ${text}: give a whole number ≥ 1`);
  return n;
}

export async function historyCommand(opts: HistoryOpts, io: CliIo): Promise<number> {
  setHistoryWarningSink((line) => io.stderr.write(line));
  if (opts.reindex) {
    const r = await reindex(opts.resultsDir);
    io.stderr.write(`history: ${r.indexed} rows (runs and sweep stages) indexed in ${join(opts.resultsDir, 'history.duckdb')}\n`);
    for (const s of r.skipped) io.stderr.write(`history: skipped ${s}\n`);
  }
  const rows = await listRuns(opts.resultsDir, {
    model: opts.model ?? null,
    since: opts.since ? parseSince(opts.since) : null,
    limit: positiveInt('--limit', opts.limit) ?? (opts.json ? null : 20),
    spec: opts.spec ?? null,
    where: parseWhere(opts.where ?? []),
  });
  if (opts.json) {
    io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return EXIT_CODES.OK;
  }
  if (rows.length === 0) {
    io.stdout.write(`No runs in the history of ${opts.resultsDir}/ (older run directories: \`infermeter history --reindex\`).\n`);
    return EXIT_CODES.OK;
  }
  io.stdout.write(`${historyTable(rows)}\n`);
  return EXIT_CODES.OK;
}

function verdict(r: JsonRow): string {
  if (r.interrupted === true) return 'interrupted';
  if (r.valid === false) return 'INVALID';
  return r.slo_pass === false ? 'SLO FAIL' : r.slo_pass === true ? 'SLO ok' : r.valid === true ? 'valid' : '—';
}

export function historyTable(rows: JsonRow[]): string {
  return textTable(
    ['started (UTC)', 'run', 'model', 'target', 'load', 'ok/total', 'TTFT p99', 'TPOT p99', 'out tok/s', 'verdict', 'spec'],
    rows.map((r) => [
      String(r.started_at).replace('T', ' ').replace('Z', ''),
      String(r.run_id),
      String(r.model ?? '—'),
      String(r.target ?? '—'),
      String(r.load_shape ?? '—'),
      `${fmt(r.ok, 0)}/${fmt(r.requests, 0)}`,
      fmt(r.ttft_p99_ms, 2),
      fmt(r.tpot_p99_ms, 2),
      fmt(r.output_throughput, 1),
      verdict(r),
      String(r.spec_hash).slice(0, 8),
    ]),
    { leftColumns: 5 },
  );
}

export interface TrendOpts {
  resultsDir: string;
  spec?: string;
  run?: string;
  limit?: string;
  threshold: string;
  json?: boolean;
  failOnRegression?: boolean;
  allowInvalid?: boolean;
  /** --band: judge the newest run against the noise band of the runs before it. */
  band?: boolean;
  confidence?: string;
}

/** `10%`, `10` (percent) or `0.1`? Only the first two: a bare number is percent, as the flag's help says. */
function parseThreshold(text: string): number {
  const m = /^(\d+(?:\.\d+)?)%?$/.exec(text.trim());
  if (!m) throw new UserError(`--threshold ${text}: give a percentage, e.g. 10%`);
  return Number(m[1]) / 100;
}

/** The band's verdict line: where the run lies, and on how many runs the band rests. */
export function bandLine(j: BandJudgement, name: string): string {
  const [lo, hi] = j.band.band;
  const pct = `${j.change >= 0 ? '+' : ''}${(j.change * 100).toFixed(1)}%`;
  const where = j.verdict === 'within' ? 'within' : j.verdict === 'worse' ? 'WORSE than' : 'better than';
  return `${name} ${fmt(j.value, 2)} (${pct} against the mean ${fmt(j.band.mean, 2)}): ${where} the noise band [${fmt(lo, 2)}, ${fmt(hi, 2)}] (${(j.band.confidence * 100).toFixed(j.band.confidence >= 0.995 ? 2 : 0)}% prediction interval from ${j.band.runs} earlier runs, sd ${fmt(j.band.sd, 2)})`;
}

async function bandTrendCommand(metric: TrendMetric, opts: TrendOpts, io: CliIo): Promise<number> {
  const confidence = opts.confidence === undefined ? 0.95 : parseThreshold(opts.confidence);
  if (!(confidence > 0 && confidence < 1)) throw new UserError('--confidence: expected a level between 0% and 100%, e.g. 95%');
  const b = await trendBand(opts.resultsDir, metric, { spec: opts.spec ?? null, run: opts.run ?? null, limit: positiveInt('--limit', opts.limit), allowInvalid: opts.allowInvalid === true, confidence });
  if (opts.json) io.stdout.write(`${JSON.stringify(b, null, 2)}\n`);
  else io.stdout.write(`${metric} of ${b.run_id}, spec ${b.spec_hash} (${b.better} is better):\n${bandLine(b, metric)}\n${b.regression ? 'REGRESSION: outside the noise band on the worse side\n' : ''}`);
  return b.regression && opts.failOnRegression ? EXIT_CODES.REGRESSION : EXIT_CODES.OK;
}

export async function trendCommand(metricName: string, opts: TrendOpts, io: CliIo): Promise<number> {
  setHistoryWarningSink((line) => io.stderr.write(line));
  const metric = trendMetric(metricName);
  if (opts.band) return bandTrendCommand(metric, opts, io);
  const t = await trend(opts.resultsDir, metric, { spec: opts.spec ?? null, run: opts.run ?? null, limit: positiveInt('--limit', opts.limit), threshold: parseThreshold(opts.threshold), allowInvalid: opts.allowInvalid === true });
  if (opts.json) io.stdout.write(`${JSON.stringify(t, null, 2)}\n`);
  else {
    const pct = (c: number | null) => (c === null ? '' : `${c >= 0 ? '+' : ''}${(c * 100).toFixed(1)}%`);
    io.stdout.write(`${metric} over ${t.points.length} runs of spec ${t.spec_hash} (${t.better} is better)\n\n`);
    io.stdout.write(
      `${textTable(
        ['started (UTC)', 'run', metric, 'change', 'note'],
        t.points.map((p) => [
          p.started_at.replace('T', ' ').replace('Z', ''),
          p.run_id,
          fmt(p.value, 2),
          pct(p.change),
          p.interrupted ? 'interrupted: not compared' : p.valid === false ? 'invalid run: not compared' : p.value === null ? 'no value' : '',
        ]),
        { leftColumns: 2 },
      )}\n\n`,
    );
    const r = t.regression;
    if (r) io.stdout.write(`REGRESSION: ${metric} ${fmt(r.previous, 2)} → ${fmt(r.value, 2)} (${pct(r.change)}, threshold ${(t.threshold * 100).toFixed(0)}%) in ${r.run_id} against ${r.previous_run_id}\n`);
    else if (t.refused) io.stdout.write('No verdict: the newest run is invalid (below).\n');
    else if (t.comparable_runs < 2) io.stdout.write(`No verdict: ${t.comparable_runs === 0 ? 'no' : 'only one'} comparable run (valid, not interrupted, with a value) of this spec.\n`);
    else io.stdout.write(`No regression: the newest comparable run is within ${(t.threshold * 100).toFixed(0)}% of the one before it.\n`);
  }
  if (t.refused) {
    io.stderr.write(`trend: the newest run ${t.refused.run_id} is invalid (${t.refused.reason}); --allow-invalid judges it anyway\n`);
    return EXIT_CODES.INVALID_RUN;
  }
  return t.regression && opts.failOnRegression ? EXIT_CODES.REGRESSION : EXIT_CODES.OK;
}

export async function sqlCommand(query: string, opts: { resultsDir: string; json?: boolean; allowFiles?: boolean }, io: CliIo): Promise<number> {
  setHistoryWarningSink((line) => io.stderr.write(line));
  const { columns, rows } = await runSql(opts.resultsDir, query, { allowFiles: opts.allowFiles === true });
  if (opts.json) {
    io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return EXIT_CODES.OK;
  }
  const cell = (v: unknown) => (v === null || v === undefined ? 'NULL' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  io.stdout.write(`${textTable(columns, rows.map((r) => columns.map((c) => cell(r[c]))), { leftColumns: columns.length })}\n(${rows.length} row${rows.length === 1 ? '' : 's'})\n`);
  return EXIT_CODES.OK;
}
