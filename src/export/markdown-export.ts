/**
 * A Markdown summary for pull requests and tickets: the verdict, the key figures as tables,
 * and the main charts as SVG files beside it (rendered in Node from the report's own
 * Vega-Lite specs). GitHub shows `![…](charts/x.svg)` when the files are committed or
 * attached together.
 */
import { distributionCharts, distributionDatasets } from '../report/charts/distribution-charts.js';
import type { Chart, Datasets } from '../report/charts/chart.js';
import { chartToSvg } from '../report/charts/chart-svg.js';
import { seriesCharts, seriesDatasets } from '../report/charts/series-charts.js';
import { runDistributions } from '../report/data/distributions.js';
import { runSeries } from '../report/data/time-series.js';
import type { RunBundle } from '../report/html/run-report.js';
import type { Distribution, RunMetrics } from '../metrics/index.js';
import { runGates } from '../analysis/gates.js';
import { gatesMarkdown } from './ci-summary.js';
import { markdownQuality } from './markdown-quality.js';
import { mdTable, mdText } from './markdown-table.js';
import { THROUGHPUT_HEAD, throughputCells } from '../report/throughput-rows.js';
import { slowestLine } from '../report/traces-summary.js';


/** Charts the Markdown summary carries, in order. */
export const MARKDOWN_CHARTS = ['cdf-ttft', 'cdf-tpot', 'cdf-itl', 'cdf-e2el', 'ts-requests', 'ts-tokens', 'ts-ttft', 'ts-slo', 'ts-errors'];

const fmt = (v: number | null | undefined, digits = 2): string => (v === null || v === undefined ? '—' : v.toFixed(digits));
const pct = (v: number | null | undefined): string => (v === null || v === undefined ? '—' : `${(v * 100).toFixed(2)}%`);

const LATENCY: Array<[keyof RunMetrics['latency'], string]> = [
  ['ttft_ms', 'TTFT'],
  ['tpot_ms', 'TPOT'],
  ['itl_ms', 'ITL'],
  ['e2el_ms', 'E2E latency'],
  ['ttft_from_schedule_ms', 'TTFT from schedule'],
];
const latencyRow = (label: string, d: Distribution) => [label, String(d.count), fmt(d.mean), fmt(d.p50), fmt(d.p90), fmt(d.p99), fmt(d.max)];

export interface MarkdownSummary {
  markdown: string;
  /** File name under the charts folder → SVG document. */
  svgs: Record<string, string>;
}

/** `chartsDir` is the charts folder as the Markdown links it (relative to the .md file). */
export async function markdownSummary(bundle: RunBundle, chartsDir: string): Promise<MarkdownSummary> {
  const { result, records } = bundle;
  const m = result.metrics;
  const out: string[] = [];
  out.push(`# infermeter ${result.run.driver === 'virtual' ? 'sim run' : 'run'}: ${mdText(result.target.model)}`);
  const target = result.target.simulated ? 'built-in simulator' : `${result.target.base_url ?? ''}${result.target.endpoint}`;
  out.push('', `Run \`${mdText(result.run.id ?? result.run.name)}\` · ${mdText(target)} · started ${mdText(result.run.started_at)} · measured ${m.duration_s.toFixed(2)} s · ${m.requests.total} requests, ${m.requests.ok} ok, ${m.requests.failed} failed`);
  const v = result.validity;
  out.push('', v === null ? '**Run validity: not assessed**' : v.valid ? '**Run validity: VALID** — the client kept its schedule and was not saturated.' : `**Run validity: INVALID** — ${v.reasons.map(mdText).join('; ')}`);
  // Every gate the exit code counted (validity, each --slo), failed first: none may be left out.
  out.push('', gatesMarkdown(runGates(result.run.id ?? result.run.name, { validity: result.validity, slos: result.slos ?? null })));
  if (m.goodput) {
    const slos = m.goodput.slos.map((s) => `${s.metric.replace(/_ms$/, '')} ≤ ${s.threshold_ms} ms`).join(', ');
    out.push('', `**SLOs** (${mdText(slos)}): ${m.goodput.good} of ${m.requests.total} requests met every SLO (**${pct(m.goodput.attained)}**); goodput ${fmt(m.goodput.request_per_s, 3)} req/s.`);
  }
  out.push('', mdTable(['Latency (ms)', 'n', 'mean', 'p50', 'p90', 'p99', 'max'], LATENCY.map(([k, l]) => latencyRow(l, m.latency[k]))));
  out.push(
    '',
    mdTable([...THROUGHPUT_HEAD], throughputCells(m).map((cells) => cells.map(mdText))),
  );
  const failures = Object.entries(m.requests.by_error_class);
  if (failures.length) out.push('', mdTable(['Failures', 'requests'], failures.map(([k, n]) => [mdText(k), String(n)])));
  if (result.by_task) {
    out.push('', mdTable(['Task', 'requests', 'TTFT p50', 'TTFT p99', 'TPOT p50', 'TPOT p99'], Object.entries(result.by_task).map(([t, g]) => [mdText(t), String(g.requests.total), fmt(g.latency.ttft_ms.p50), fmt(g.latency.ttft_ms.p99), fmt(g.latency.tpot_ms.p50), fmt(g.latency.tpot_ms.p99)])));
  }

  const slowest = result.traces ? slowestLine(result.traces) : null;
  if (slowest) out.push('', `**Traces** (${result.traces!.matched} of ${result.traces!.requests} requests matched to a server span): ${mdText(slowest)}.`);

  if (result.quality) out.push('', markdownQuality(result.quality, result.cost?.currency ?? null));

  const dists = runDistributions(records);
  const series = runSeries(records, m.goodput?.slos ?? []);
  const data: Datasets = { ...distributionDatasets(dists), ...seriesDatasets(series) };
  const byId = new Map<string, Chart>([...distributionCharts(dists), ...seriesCharts(series)].map((c) => [c.id, c]));
  const svgs: Record<string, string> = {};
  const charts = MARKDOWN_CHARTS.map((id) => byId.get(id)).filter((c): c is Chart => c !== undefined);
  if (charts.length) out.push('', '## Charts');
  for (const c of charts) {
    svgs[`${c.id}.svg`] = await chartToSvg(c, data);
    out.push('', `**${mdText(c.title)}** — ${mdText(c.caption)}`, '', `![${mdText(c.title)}](${chartsDir}/${c.id}.svg)`);
  }
  out.push('', `<sub>infermeter ${mdText(result.infermeter_version)}; the full report: \`infermeter report\`.</sub>`, '');
  return { markdown: out.join('\n'), svgs };
}
