/**
 * The Markdown summary's answer-quality section (docs/quality.md §Figures): the figures the run
 * has (a figure whose checks the run did not carry is left out), accuracy per task, and the
 * successful tasks with their rate and cost. Same rows and wording as the console and the report.
 */
import type { QualityFigures } from '../metrics/quality.js';
import { money } from '../util/money.js';
import { formatRate, qualityFigureRows } from '../report/quality-summary.js';
import { mdTable, mdText } from './markdown-table.js';

/** `formatRate` in a cell: its brackets are escaped so no renderer reads them as a link. */
const rateCell = (...args: Parameters<typeof formatRate>): string => mdText(formatRate(...args));

export function markdownQuality(q: QualityFigures, currency: string | null): string {
  const out: string[] = ['## Answer quality', '', `${q.checked} measured requests carried an answer check; ${q.answered} were answered. Intervals are Wilson 95%.`];
  out.push('', mdTable(['Quality', 'value [95% CI] (k/n)'], qualityFigureRows(q).map(([label, r]) => [mdText(label), rateCell(r)])));
  const tasks = Object.entries(q.by_task);
  if (tasks.length > 1) {
    out.push('', mdTable(['Task', 'checked', 'answered', 'accuracy [95% CI] (k/n)'], tasks.map(([t, f]) => [mdText(t), String(f.checked), String(f.answered), rateCell(f.accuracy)])));
  }
  const s = q.success;
  const within = s.slos_applied ? 'ok, correct and within every per-request SLO' : 'ok and correct; no per-request SLOs were given';
  const perS = s.per_s === null ? '—' : s.per_s.toFixed(3);
  const cost = s.cost_per_success === null || currency === null ? '' : `; cost per successful task **${mdText(money(s.cost_per_success, currency))}**`;
  out.push('', `**Successful tasks** (${within}): **${s.count}** of ${q.checked} (${rateCell(s.rate)}); **${perS}** successful tasks/s${cost}.`);
  return out.join('\n');
}
