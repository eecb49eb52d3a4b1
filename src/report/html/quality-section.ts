/**
 * The report's quality section (docs/quality.md §Figures): result.json `quality` as tables, and
 * a few failed checks from the records with the reason each failed.
 */
import type { QualityFigures, Rate } from '../../metrics/quality.js';
import type { RequestRecord } from '../../record/record.js';
import { money } from '../../util/money.js';
import { formatRate, qualityFigureRows } from '../quality-summary.js';
import { escapeHtml as e } from './escape.js';
import { htmlTable } from './tables.js';

const clip = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function rows(q: QualityFigures): string[][] {
  const out: Array<[string, Rate]> = [...qualityFigureRows(q), ['Successful tasks', q.success.rate]];
  return out.map(([label, r]) => [label, formatRate(r)]);
}

/** A few failed checks (request id, task, kind, outcome, reason, answer). */
function failedChecks(records: readonly RequestRecord[], max = 8): string {
  const failed = records.filter((r) => r.phase === 'measure' && r.quality && !r.quality.pass && r.status === 'ok').slice(0, max);
  if (failed.length === 0) return '<p class="note">Every answered check passed.</p>';
  return htmlTable(
    ['Request', 'task', 'check', 'outcome', 'reason', 'answer (first 200 characters)'],
    failed.map((r) => [`#${r.id}`, r.task ?? '—', r.quality!.kind, r.quality!.outcome, clip(r.quality!.reason, 200), clip(r.output_text ?? '', 200)]),
    { numeric: false },
  );
}

export function qualitySectionHtml(q: QualityFigures, records: readonly RequestRecord[], currency: string | null): string {
  const s = q.success;
  const tasks = Object.entries(q.by_task);
  const perTask =
    tasks.length > 1 ? `<h3>Per task</h3>${htmlTable(['Task', 'checked', 'answered', 'accuracy [95% CI] (k/n)'], tasks.map(([t, f]) => [t, String(f.checked), String(f.answered), formatRate(f.accuracy)]))}` : '';
  const cost = s.cost_per_success === null || currency === null ? '' : `; cost per successful task <strong>${e(money(s.cost_per_success, currency))}</strong>`;
  return (
    `<p>${e(q.checked)} measured requests carried an answer check; ${e(q.answered)} were answered. Intervals are Wilson 95%.</p>` +
    htmlTable(['Figure', 'value [95% CI] (k/n)'], rows(q), { numeric: false }) +
    `<p>A success is a request that is ok, passes its check${s.slos_applied ? ' and meets every per-request SLO' : ' (no per-request SLOs were given)'}: <strong>${e(s.count)}</strong> successes, <strong>${e(s.per_s === null ? '—' : s.per_s.toFixed(3))}</strong> successful tasks/s${cost}.</p>` +
    perTask +
    `<h3>Failed checks</h3>${failedChecks(records)}`
  );
}
