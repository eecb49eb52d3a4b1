/**
 * A run's answer quality as the dashboard shows it (docs/quality.md §Figures): the same rows,
 * intervals and wording as the console and the report, formatted here so the page's script only
 * places text. Figures whose checks the run did not carry are left out.
 */
import { readPartialRun } from '../store/run-bundle.js';
import { money } from '../util/money.js';
import { formatRate, qualityFigureRows } from '../report/quality-summary.js';
import type { RunResult } from '../report/result-json.js';

/** result.json `quality` (the report owns the result's shape; the dashboard does not read metrics/). */
type QualityFigures = NonNullable<RunResult['quality']>;

export interface QualityView {
  summary: string;
  /** [figure, `value [95% CI] (k/n)`] */
  figures: Array<[string, string]>;
  /** [task, checked, answered, accuracy]; empty with a single task. */
  tasks: Array<[string, string, string, string]>;
  success: string;
}

export function qualityView(q: QualityFigures, currency: string | null): QualityView {
  const s = q.success;
  const tasks = Object.entries(q.by_task);
  const perS = s.per_s === null ? '—' : s.per_s.toFixed(3);
  const cost = s.cost_per_success === null || currency === null ? '' : `; cost per successful task ${money(s.cost_per_success, currency)}`;
  return {
    summary: `${q.checked} measured requests carried an answer check; ${q.answered} were answered. Intervals are Wilson 95%.`,
    figures: qualityFigureRows(q).map(([label, r]) => [label, formatRate(r)]),
    tasks: tasks.length > 1 ? tasks.map(([t, f]) => [t, String(f.checked), String(f.answered), formatRate(f.accuracy)]) : [],
    success: `Successful tasks (ok, correct${s.slos_applied ? ', within every per-request SLO' : '; no per-request SLOs were given'}): ${s.count} of ${q.checked} (${formatRate(s.rate)}); ${perS} successful tasks/s${cost}`,
  };
}

/** The currency of a run's cost block (result.json), null for a sweep or an unpriced run. */
export function runCurrency(runDir: string): string | null {
  const r = readPartialRun<{ cost?: { currency?: unknown } | null }>(runDir, { schema: 'ignore' }).result;
  return typeof r?.cost?.currency === 'string' ? r.cost.currency : null;
}
