/**
 * The noise band of a spec from its past runs in the history (docs/history.md §Noise band): the
 * prediction interval of one more run, mean ± t(1 − α/2, n − 1)·s·√(1 + 1/n) over the n earlier
 * comparable runs (same spec hash, valid, not interrupted; n ≥ MIN_BAND_RUNS), and where the new
 * run lies against it. `trend --band` judges the newest run of a spec on one metric;
 * `compare RUN --against-history` judges a run on every figure the history keeps, the family's α
 * split equally over them (Bonferroni), so "outside the band" anywhere is a ≤ α false alarm.
 */
import { UserError } from '../errors/user-error.js';
import { judgeAgainstBand, MIN_BAND_RUNS, noiseBand, type NoiseBand } from '../analysis/over-runs.js';
import { withHistory } from './history-db.js';
import { rowFromRunDir, type HistoryRow } from './history-row.js';
import { queryRows } from './history-query.js';
import { specRows, TREND_METRICS, type TrendMetric, type TrendQuery, type TrendRow } from './trend.js';
import { dirname } from 'node:path';

export interface BandJudgement {
  metric: TrendMetric;
  better: 'lower' | 'higher';
  value: number;
  band: NoiseBand;
  /** The past runs the band rests on, oldest first. */
  past: string[];
  verdict: 'worse' | 'better' | 'within';
  /** value / band mean − 1. */
  change: number;
}

function bandOf(metric: TrendMetric, value: number, past: ReadonlyArray<{ run_id: string; value: number }>, confidence: number): BandJudgement {
  const band = noiseBand(past.map((p) => p.value), confidence);
  const better = TREND_METRICS[metric];
  return { metric, better, value, band, past: past.map((p) => p.run_id), verdict: judgeAgainstBand(value, band, better), change: band.mean !== 0 ? value / band.mean - 1 : 0 };
}

const comparable = (r: TrendRow, allowInvalid: boolean): boolean => r.value !== null && !r.interrupted && (r.valid !== false || allowInvalid);

function tooFew(hash: string, found: number): UserError {
  return new UserError(`the noise band needs at least ${MIN_BAND_RUNS} earlier comparable runs (valid, not interrupted) of spec ${hash}; the history has ${found}`);
}

export interface BandTrend extends BandJudgement {
  spec_hash: string;
  run_id: string;
  /** Outside the band on the worse side. */
  regression: boolean;
}

/**
 * Pure: the newest comparable row against the band of the comparable rows before it.
 * @throws UserError when fewer than MIN_BAND_RUNS rows come before it.
 */
export function assessBand(metric: TrendMetric, hash: string, rows: readonly TrendRow[], confidence: number, allowInvalid = false): BandTrend {
  const usable = rows.filter((r) => comparable(r, allowInvalid)) as Array<TrendRow & { value: number }>;
  const newest = usable.at(-1);
  const past = usable.slice(0, -1);
  if (!newest || past.length < MIN_BAND_RUNS) throw tooFew(hash, past.length);
  const j = bandOf(metric, newest.value, past, confidence);
  return { ...j, spec_hash: hash, run_id: newest.run_id, regression: j.verdict === 'worse' };
}

/** `trend METRIC --band`: the newest comparable run of the spec against the band of those before it. */
export function trendBand(resultsDir: string, metric: TrendMetric, q: Omit<TrendQuery, 'threshold'> & { confidence: number }): Promise<BandTrend> {
  return withHistory(resultsDir, { mode: 'read' }, async (c) => {
    const { hash, rows } = await specRows(c, metric, q);
    return assessBand(metric, hash, rows, q.confidence, q.allowInvalid === true);
  });
}

/** The history's column of each figure `compare --against-history` judges. */
const BAND_FIGURES: ReadonlyArray<[label: string, metric: TrendMetric]> = [
  ['TTFT p50 (ms)', 'ttft_p50_ms'],
  ['TTFT p99 (ms)', 'ttft_p99_ms'],
  ['TPOT p50 (ms)', 'tpot_p50_ms'],
  ['TPOT p99 (ms)', 'tpot_p99_ms'],
  ['ITL p50 (ms)', 'itl_p50_ms'],
  ['ITL p99 (ms)', 'itl_p99_ms'],
  ['E2EL p50 (ms)', 'e2el_p50_ms'],
  ['E2EL p99 (ms)', 'e2el_p99_ms'],
  ['Requests/s', 'request_throughput'],
  ['Output tokens/s', 'output_throughput'],
  ['Failure rate', 'failure_rate'],
];

export interface HistoryComparison {
  schema: 'infermeter.compare-history/1';
  run: string;
  spec_hash: string;
  /** Family-wise confidence, and each figure's level (Bonferroni over the figures judged). */
  confidence: number;
  per_figure_level: number;
  /** The earlier runs of the spec the bands rest on. */
  runs: number;
  figures: Array<BandJudgement & { label: string; regression: boolean }>;
}

/**
 * A run directory against the noise bands of its spec's earlier runs in `resultsDir`'s history
 * (the run itself left out). `failOnRegression`: a worse figure is a regression when it is also
 * that far from the band's mean (null: any worse figure).
 * @throws UserError when the history holds fewer than MIN_BAND_RUNS earlier comparable runs.
 */
export function compareAgainstHistory(resultsDir: string, runDir: string, o: { confidence: number; failOnRegression: number | null; allowInvalid: boolean }): Promise<HistoryComparison> {
  const row: HistoryRow = rowFromRunDir(dirname(runDir), runDir);
  return withHistory(resultsDir, { mode: 'read' }, async (c) => {
    const rows = await queryRows(
      c,
      `SELECT run_id, ${BAND_FIGURES.map(([, m]) => m).join(', ')}, valid, interrupted FROM runs
        WHERE spec_hash = ? AND run_id <> ? AND started_at < ?::TIMESTAMPTZ AND NOT interrupted ${o.allowInvalid ? '' : 'AND valid IS NOT false'} ORDER BY started_at, run_id`,
      [row.spec_hash, row.run_id, row.started_at],
    );
    if (rows.length < MIN_BAND_RUNS) throw tooFew(row.spec_hash, rows.length);
    const judged = BAND_FIGURES.filter(([, m]) => typeof row[m] === 'number' && rows.every((r) => typeof r[m] === 'number'));
    const level = 1 - (1 - o.confidence) / Math.max(1, judged.length);
    const figures = judged.map(([label, m]) => {
      const j = bandOf(m, row[m] as number, rows.map((r) => ({ run_id: r.run_id as string, value: r[m] as number })), level);
      const far = o.failOnRegression === null || Math.abs(j.change) > o.failOnRegression;
      return { ...j, label, regression: j.verdict === 'worse' && far };
    });
    return { schema: 'infermeter.compare-history/1', run: runDir, spec_hash: row.spec_hash, confidence: o.confidence, per_figure_level: level, runs: rows.length, figures };
  });
}
