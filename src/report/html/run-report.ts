/**
 * The HTML report of one run: result.json's figures and verdicts as tables, the records'
 * distributions and time series as charts (binned and windowed: the page's size does not
 * grow with the run), the run spec.
 */
import type { RequestRecord } from '../../record/record.js';
import { SLO_METRICS } from '../../metrics/index.js';
import type { RunResult } from '../result-json.js';
import { breakdownChart } from '../charts/breakdown-charts.js';
import { SLO_RULES, type Chart, type Datasets } from '../charts/chart.js';
import { sloRules } from '../data/slo-rules.js';
import { timelineRows } from '../data/timeline.js';
import { TIMELINE, timelineChart } from '../charts/timeline-chart.js';
import type { Snapshot } from '../../observe/snapshot.js';
import { distributionCharts, distributionDatasets } from '../charts/distribution-charts.js';
import { seriesCharts, seriesDatasets } from '../charts/series-charts.js';
import { runDistributions } from '../data/distributions.js';
import { runSeries, seriesTokens } from '../data/time-series.js';
import { escapeHtml as e } from './escape.js';
import { traceCharts, traceDatasets } from '../charts/trace-charts.js';
import { tracesSectionHtml } from '../traces-summary.js';
import { renderPage, type PageSection } from './page.js';
import { renderCost } from '../cost-summary.js';
import { renderColdStart, renderServerSummary } from '../server-summary.js';
import type { ObjectiveUnit } from '../../config/slo.js';
import { overviewHtml } from './overview.js';
import type { SweepContext } from '../../analysis/load-curve.js';
import { sweepContextView } from './sweep-context.js';
import { formatInUnit, plural } from '../units.js';
import { qualitySectionHtml } from './quality-section.js';
import { failureExamples, groupTable, htmlTable, latencyTable, pct, requestsTable, sampleOutputs, throughputTable } from './tables.js';

export interface RunBundle {
  result: RunResult;
  /** spec.json of the run (secrets already removed), when present. */
  spec: unknown;
  records: readonly RequestRecord[];
  /** server-metrics.jsonl: the server's scrapes on the run clock (empty when it was not observed). */
  serverSnapshots?: readonly Snapshot[];
}

/** result.json `slos` (windowed SLO results, where the run had `--slo`), read by its documented fields. */
interface SloResultView {
  slo: string;
  /** Absent in results written before objectives carried it. */
  unit?: ObjectiveUnit;
  value: number | null;
  attainment: number | null;
  attainment_target?: number;
  windows?: { evaluated: number; met: number };
  pass?: boolean | null;
}

function sloResultsHtml(result: RunResult): string {
  const list = (result as { slos?: unknown }).slos;
  if (!Array.isArray(list) || list.length === 0) return '';
  const rows = (list as SloResultView[]).map((r) => [
    r.slo,
    formatInUnit(r.value, r.unit),
    r.windows ? `${r.windows.met} / ${r.windows.evaluated}` : '—',
    pct(r.attainment),
    r.attainment_target === undefined ? '—' : pct(r.attainment_target),
    r.pass === undefined || r.pass === null ? '—' : r.pass ? 'pass' : 'FAIL',
  ]);
  return `<h3>SLO verdicts</h3>${htmlTable(['SLO', 'value (whole run)', 'windows met', 'attainment', 'target', 'verdict'], rows, { numeric: false })}`;
}

function sloHtml(result: RunResult): string {
  const verdicts = sloResultsHtml(result);
  const g = result.metrics.goodput;
  if (!g && verdicts) return verdicts;
  if (!g) return '<p class="note">No SLOs were given. Add <code>--goodput ttft:500 tpot:50</code> to a run, or to <code>infermeter analyze</code>, to see goodput and attainment.</p>';
  const rows = g.slos.map((s) => `<li>${e(SLO_METRICS[s.metric]?.label ?? s.metric)} ≤ ${e(s.threshold_ms)} ms</li>`).join('');
  return `${verdicts}<p>Goodput objectives (per request):</p><ul>${rows}</ul><p><strong>${e(g.good)}</strong> of ${e(result.metrics.requests.total)} measured requests met every SLO (<strong>${e(pct(g.attained))}</strong>); goodput ${e(g.request_per_s?.toFixed(3) ?? '—')} req/s, ${e(g.output_tokens_per_s?.toFixed(1) ?? '—')} output tok/s.</p>`;
}

function factsOf(result: RunResult): Array<[string, string]> {
  const t = result.target;
  const facts: Array<[string, string]> = [
    ['Run', result.run.id ?? result.run.name],
    ['Model', t.model],
    ['Target', t.simulated ? `built-in simulator (${result.run.driver === 'virtual' ? 'virtual time' : 'HTTP'})` : `${t.base_url ?? ''}${t.endpoint}`],
    ['Started', result.run.started_at],
    ['Measured', `${result.metrics.duration_s.toFixed(2)} s`],
    ['Requests', `${result.metrics.requests.total} (${result.metrics.requests.failed} failed)`],
  ];
  if (result.run.interrupted) facts.push(['Interrupted', 'yes (what was measured is shown)']);
  return facts;
}

/** Why this table's counts can exceed the summary's: it holds every phase, the summary the measured one. */
function failureCountNote(records: readonly RequestRecord[], measured: number): string {
  const all = records.filter((r) => r.status !== 'ok').length;
  if (all === measured) return `<p class="note">${e(plural(all, 'failed request'))}, all in the measured phase.</p>`;
  return `<p class="note">${e(plural(all, 'failed request'))} over every phase (warmup, measure, cooldown); the summary’s ${e(measured)} are the measured phase’s only.</p>`;
}

/** The server's spans joined to the records (--otlp-receiver, --spans): where the slowest requests spent their time. */
function tracesSection(result: RunResult, datasets: Datasets): PageSection[] {
  const t = result.traces;
  if (!t || t.matched === 0) return [];
  // A result.json of traces/1 has neither list: the table alone.
  const charts = traceCharts().filter((c) => (c.id === 'trace-slowest' ? (t.slowest_requests?.length ?? 0) > 0 : (t.over_time?.points.length ?? 0) > 0));
  if (charts.length) Object.assign(datasets, traceDatasets({ slowest_requests: t.slowest_requests ?? [], over_time: t.over_time ?? null }));
  return [{ id: 'traces', title: 'Where the time went (server spans)', html: tracesSectionHtml(t, (h, rows) => htmlTable(h, rows), e), charts }];
}

/** `sweep`: a sweep of the run's target and workload (history/sweep-match.ts), drawn on the first screen with the run on it. */
export function buildRunReport(bundle: RunBundle, generator: string, sweep?: SweepContext | null): Promise<string> {
  const { result, records } = bundle;
  const slos = result.metrics.goodput?.slos ?? [];
  // The series' output tokens are spread by the ITL distribution's first pass over the chunks.
  const tokens = seriesTokens(records);
  const dists = runDistributions(records, tokens);
  const series = runSeries(records, slos, tokens);
  const rules = sloRules(result.slos, slos);
  const snapshots = bundle.serverSnapshots ?? [];
  const datasets: Datasets = { ...distributionDatasets(dists), ...seriesDatasets(series), [SLO_RULES]: rules };
  datasets[TIMELINE] = timelineRows(series.points, series.window_s, rules, snapshots);
  const allSeries = seriesCharts(series);
  const pick = (...ids: string[]) => allSeries.filter((c) => ids.includes(c.id));

  const onSweep = sweepContextView(sweep, result);
  if (onSweep) Object.assign(datasets, onSweep.datasets);

  const sections: PageSection[] = [
    { id: 'overview', title: 'At a glance', html: overviewHtml(result) + (onSweep?.html ?? ''), charts: onSweep?.charts ?? [] },
    {
      id: 'summary',
      title: 'Summary',
      html: `<div class="tables">${requestsTable(result.metrics)}${throughputTable(result.metrics)}</div>${latencyTable(result.metrics)}`,
      charts: [],
    },
    ...(result.quality ? [{ id: 'quality', title: 'Answer quality', html: qualitySectionHtml(result.quality, records, result.cost?.currency ?? null), charts: [] }] : []),
    { id: 'slo', title: 'SLOs and goodput', html: sloHtml(result), charts: pick('ts-slo') },
    {
      id: 'timeline',
      title: snapshots.length ? 'Client and server over time' : 'Latency over time',
      html: '',
      charts: [timelineChart(snapshots.length > 0)],
    },
    ...tracesSection(result, datasets),
    { id: 'distributions', title: 'Latency distributions', html: '', charts: distributionCharts(dists) },
    { id: 'over-time', title: 'Over the run', html: '', charts: pick('ts-requests', 'ts-tokens', 'ts-inflight', 'ts-ttft', 'ts-tpot', 'ts-errors') },
    { id: 'schedule', title: 'Arrival schedule vs. actual sends', html: '', charts: pick('ts-schedule', 'ts-lag') },
  ];

  const breakdownHtml: string[] = [];
  const breakdownCharts: Chart[] = [];
  if (result.by_task && Object.keys(result.by_task).length > 0) {
    const groups = Object.entries(result.by_task);
    breakdownHtml.push(`<h3>Per task</h3>${groupTable('Task', groups)}`);
    const b = breakdownChart('tasks', 'Latency per task', groups);
    breakdownCharts.push(b.chart);
    Object.assign(datasets, b.data);
  }
  if (result.by_turn) {
    const groups: Array<[string, typeof result.by_turn.first_turn]> = [
      ['first turn', result.by_turn.first_turn],
      ['later turns', result.by_turn.later_turns],
    ];
    breakdownHtml.push(`<h3>Per turn</h3>${groupTable('Turn', groups)}`);
    const b = breakdownChart('turns', 'Latency: first turn vs. later turns', groups);
    breakdownCharts.push(b.chart);
    Object.assign(datasets, b.data);
  }
  if (breakdownHtml.length) sections.push({ id: 'breakdowns', title: 'Per task and per turn', html: breakdownHtml.join(''), charts: breakdownCharts });

  // The server's side, cost and cold start: the console's own blocks, so both say the same.
  const extra: string[] = [];
  if (result.server) extra.push(`<h3>Server side</h3><pre>${e(renderServerSummary(result.server, result.metrics.latency.ttft_ms.mean ?? null))}</pre>`);
  if (result.cost) extra.push(`<h3>Cost</h3><pre>${e(renderCost(result.cost))}</pre>`);
  if (result.cold_start) extra.push(`<h3>Cold start</h3><pre>${e(renderColdStart(result.cold_start))}</pre>`);
  if (extra.length) sections.push({ id: 'server-cost', title: 'Server, cost and cold start', html: extra.join(''), charts: [] });

  const failures = failureExamples(records);
  const outputs = sampleOutputs(records);
  sections.push({
    id: 'requests',
    title: 'Failures and outputs',
    html: `<h3>Failures by class</h3>${failures ? `${failureCountNote(records, result.metrics.requests.failed)}${failures}` : '<p class="note">No request failed.</p>'}<h3>Sample outputs</h3>${outputs ?? '<p class="note">Outputs were not kept (run with <code>--keep-text</code> to keep them).</p>'}`,
    charts: [],
  });
  sections.push({
    id: 'spec',
    title: 'Run spec',
    html: `<details open><summary>spec.json (secrets removed), load and workload as run</summary><pre>${e(JSON.stringify(bundle.spec ?? { load: result.load, workload: result.workload, target: result.target }, null, 2))}</pre></details>`,
    charts: [],
  });

  const title = `infermeter ${result.run.driver === 'virtual' ? 'sim run' : 'run'}: ${result.target.model}`;
  return renderPage({ title, facts: factsOf(result), sections, datasets, generator });
}
