/** The rows behind the dashboard's charts, from the history and a run's progress.jsonl. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { withHistory } from '../history/history-db.js';
import { queryRows, type JsonRow } from '../history/history-query.js';
import type { TrendVerdict } from '../history/trend.js';
import { PROGRESS_FILE } from '../store/progress-file.js';

export function trendPoints(t: TrendVerdict): object[] {
  return t.points
    .filter((p) => p.value !== null)
    .map((p) => ({
      t: p.started_at,
      run_id: p.run_id,
      value: p.value,
      status: t.regression?.run_id === p.run_id ? 'regression' : p.comparable ? 'compared' : 'not comparable',
    }));
}

/**
 * Which history rows a load curve is drawn from: runs and sweep stages at a finite offered rate,
 * valid and complete. The groups count loads with the same filter, so "(3 loads)" is three points.
 */
const CURVE_ROWS = `request_rate IS NOT NULL AND valid IS NOT FALSE AND NOT interrupted AND kind IN ('run', 'sweep')`;

/** Model × target × endpoint groups that have runs or sweep stages at two or more offered loads. */
export function loadCurveGroups(resultsDir: string): Promise<JsonRow[]> {
  return withHistory(resultsDir, { mode: 'read' }, (c) =>
    queryRows(
      c,
      `SELECT model, target, endpoint, count(DISTINCT request_rate)::INTEGER AS n FROM runs
       WHERE ${CURVE_ROWS} GROUP BY ALL HAVING count(DISTINCT request_rate) >= 2 ORDER BY model, target`,
    ),
  );
}

/** The newest valid run at each offered load of a group: TTFT p50/p99 and output throughput. */
export async function loadCurvePoints(resultsDir: string, g: { model: string; target: string; endpoint: string }): Promise<object[]> {
  const rows = await withHistory(resultsDir, { mode: 'read' }, (c) =>
    queryRows(
      c,
      `SELECT request_rate, arg_max(ttft_p50_ms, started_at) AS p50, arg_max(ttft_p99_ms, started_at) AS p99, arg_max(output_throughput, started_at) AS thr
       FROM runs WHERE model = ? AND target = ? AND endpoint = ? AND ${CURVE_ROWS}
       GROUP BY request_rate ORDER BY request_rate`,
      [g.model, g.target, g.endpoint],
    ),
  );
  return rows.flatMap((r) => [
    { load: r.request_rate, series: 'TTFT p50', value: r.p50 },
    { load: r.request_rate, series: 'TTFT p99', value: r.p99 },
    { load: r.request_rate, series: 'output tok/s', value: r.thr },
  ]);
}

/** The frames of a run's progress.jsonl as chart rows. */
export function livePoints(runDir: string): object[] {
  let text: string;
  try {
    text = readFileSync(join(runDir, PROGRESS_FILE), 'utf8');
  } catch {
    return [];
  }
  const out: object[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      const f = JSON.parse(line) as { elapsed_ms: number; request_rate: number; ttft_p99_ms: number | null };
      out.push({ elapsed_s: f.elapsed_ms / 1000, request_rate: f.request_rate, ttft_p99_ms: f.ttft_p99_ms });
    } catch {
      // a line being written
    }
  }
  return out;
}
