/** The quality block of the console summary (figures from src/metrics/quality.ts, docs/quality.md). */
import type { QualityFigures, Rate } from '../metrics/quality.js';
import { textTable } from '../util/text-table.js';
import { money } from '../util/money.js';

/** `87.5% [80.1–92.4%] (70/80)`: a share with its 95% interval and counts. */
export function formatRate(r: Rate | null): string {
  if (r === null || r.value === null) return '—';
  const p = (v: number) => (v * 100).toFixed(1);
  const ci = r.ci95 ? ` [${p(r.ci95[0])}–${p(r.ci95[1])}%]` : '';
  return `${p(r.value)}%${ci} (${r.k}/${r.n})`;
}

/**
 * The figures a run has, in the order every output shows them (console, report, Markdown,
 * dashboard): a figure whose checks the run did not carry is left out, not shown as empty.
 */
export function qualityFigureRows(q: QualityFigures): Array<[string, Rate]> {
  const rows: Array<[string, Rate]> = [['Accuracy (all answered)', q.accuracy]];
  if (q.hallucination) rows.push(['Hallucination (closed-book)', q.hallucination.rate], ['Abstention (closed-book)', q.hallucination.abstention]);
  if (q.format_compliance) rows.push(['Format compliance (json, length)', q.format_compliance]);
  if (q.code_pass) rows.push(['Code pass rate', q.code_pass]);
  if (q.citation_correctness) rows.push(['Citation correctness', q.citation_correctness]);
  if (q.refusal) rows.push(['Refusal (should refuse)', q.refusal.rate], ['Over-refusal (benign)', q.refusal.over_refusal]);
  rows.push(['Empty answers', q.empty_answers], ['Malformed answers (json, code)', q.malformed_answers]);
  return rows;
}

export function renderQuality(q: QualityFigures, currency: string | null): string {
  const rows = qualityFigureRows(q).map(([label, r]) => [label, formatRate(r)]);
  const out = [`Quality: ${q.checked} checked requests, ${q.answered} answered`, textTable(['Quality', 'value [95% CI] (k/n)'], rows)];
  const tasks = Object.entries(q.by_task);
  if (tasks.length > 1) {
    out.push(textTable(['Task', 'checked', 'answered', 'accuracy [95% CI]'], tasks.map(([t, f]) => [t, String(f.checked), String(f.answered), formatRate(f.accuracy)])));
  }
  const s = q.success;
  const perS = s.per_s === null ? '—' : s.per_s.toFixed(3);
  const cost = s.cost_per_success === null || currency === null ? '' : `;  cost per successful task ${money(s.cost_per_success, currency)}`;
  out.push(
    `Successful tasks (ok, correct${s.slos_applied ? ', within SLOs' : ', no SLOs given'}): ${s.count} of ${q.checked} (${formatRate(s.rate)});  ${perS} successful tasks/s${cost}`,
  );
  return out.join('\n');
}
