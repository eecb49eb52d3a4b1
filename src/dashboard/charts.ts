/**
 * The dashboard's charts: Vega-Lite specs rendered to SVG on the server (vega's headless view),
 * so the page needs no charting code and no network: an <img> of a local URL.
 *
 * A render is spec → Vega (vega-lite's compile) → Vega's runtime dataflow (vega.parse) → a view
 * over the points → SVG. The first two steps depend on the spec only, and the dashboard draws
 * three specs (the trend's differs by its y title alone), so they are done ahead of time:
 * compiled-charts.ts holds each spec's runtime dataflow as JSON (written by `npm run
 * charts:compile`, checked against a fresh compile by test/dashboard/compiled-charts.test.ts).
 * A page load then neither compiles nor parses a spec. A spec missing from the table (changed
 * without recompiling) is compiled here as before, once per process.
 *
 * The trend's title is a slot: the table holds its dataflow with TITLE_SLOT where the title goes,
 * and a render puts the metric name in (a plain word: TrendMetric names only).
 */
import * as vega from 'vega';
import type { TopLevelSpec } from 'vega-lite';
import { COMPILED_DASHBOARD_CHARTS } from './compiled-charts.js';

const CONFIG = {
  font: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  axis: { labelFontSize: 11, titleFontSize: 12, gridColor: '#e6e6e6' },
  legend: { labelFontSize: 11, titleFontSize: 12, orient: 'top' },
  view: { stroke: null },
} as const;

/** Stands for a chart's per-request title in a spec and in its compiled dataflow. */
export const TITLE_SLOT = 'INFERMETER_TITLE_SLOT';

/** A chart to draw: its Vega-Lite spec, and the same spec with TITLE_SLOT for its title (found in the table for any title). */
export interface DashboardChart {
  spec: TopLevelSpec;
  slotted?: { spec: TopLevelSpec; title: string };
}

/** The spec as rendered: the shared look added. */
export function fullSpec(spec: TopLevelSpec): TopLevelSpec {
  return { ...spec, config: CONFIG, background: 'white', padding: 8 } as TopLevelSpec;
}

/** Vega's runtime dataflow of a full spec (JSON): vega-lite's compile, then vega's parse. */
export async function compileDataflow(full: TopLevelSpec): Promise<string> {
  const { compile } = await import('vega-lite');
  return JSON.stringify(vega.parse(compile(full).spec));
}

/** Spec key → the table's dataflow (parsed once), then as JSON text on first use. */
let table: Map<string, unknown> | null = null;
/** Specs compiled here because the table lacked them: once per process. */
const compiledHere = new Map<string, Promise<string>>();

/** The runtime dataflow (JSON text) of a chart's spec, slot still in: the table's, else compiled now. */
export function dataflowOf(spec: TopLevelSpec): Promise<string> {
  const full = fullSpec(spec);
  const key = JSON.stringify(full);
  table ??= new Map(JSON.parse(COMPILED_DASHBOARD_CHARTS) as Array<[string, unknown]>);
  const ahead = table.get(key);
  if (ahead !== undefined) {
    const text = typeof ahead === 'string' ? ahead : JSON.stringify(ahead);
    table.set(key, text);
    return Promise.resolve(text);
  }
  let p = compiledHere.get(key);
  if (!p) {
    p = compileDataflow(full);
    compiledHere.set(key, p);
    p.catch(() => compiledHere.delete(key));
  }
  return p;
}

export async function renderSvg(chart: DashboardChart, values: object[]): Promise<string> {
  const slot = chart.slotted;
  // Only a plain word goes into the JSON text (no quoting to get wrong); another title is compiled with the spec it is in.
  const flow = slot && /^\w+$/.test(slot.title) ? (await dataflowOf(slot.spec)).replaceAll(TITLE_SLOT, slot.title) : await dataflowOf(chart.spec);
  const view = new vega.View(JSON.parse(flow) as vega.Runtime, { renderer: 'none' });
  view.data('points', values);
  await view.runAsync();
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}

const SIZE = { width: 560, height: 200 } as const;

/**
 * Tick labels as plain numbers with the zeros trimmed: "5", "0.25", "1,200" — Vega's default
 * pads every label to the precision of the tick step, which reads "5.000000" on a flat series.
 */
const NUMBER_AXIS = { format: ',~f' } as const;

/** A metric per run, oldest first; regressions (comparable runs only) in red. */
export function trendSpec(metric: string): TopLevelSpec {
  return {
    ...SIZE,
    data: { name: 'points' },
    layer: [
      { mark: { type: 'line', color: '#4c78a8' }, encoding: { x: { field: 't', type: 'temporal', title: 'run started (UTC)', axis: { format: '%b %d %H:%M', labelAngle: 0, labelOverlap: true } }, y: { field: 'value', type: 'quantitative', title: metric, axis: NUMBER_AXIS } } },
      {
        mark: { type: 'point', filled: true, size: 60 },
        encoding: {
          x: { field: 't', type: 'temporal' },
          y: { field: 'value', type: 'quantitative' },
          color: { field: 'status', type: 'nominal', title: null, scale: { domain: ['compared', 'not comparable', 'regression'], range: ['#4c78a8', '#aaaaaa', '#d62728'] } },
          tooltip: [{ field: 'run_id' }, { field: 'value', format: '.2f' }],
        },
      },
    ],
  } as TopLevelSpec;
}

/** The trend chart of a metric: one spec in the table for every metric, its name put in as the y title. */
export function trendChart(metric: string): DashboardChart {
  return { spec: trendSpec(metric), slotted: { spec: trendSpec(TITLE_SLOT), title: metric } };
}
/** Runs of one model and target by offered load: latency percentiles and throughput (a sweep assembled from the history). */
export function loadCurveSpec(): TopLevelSpec {
  return {
    data: { name: 'points' },
    hconcat: [
      {
        width: 300,
        height: 200,
        mark: { type: 'line', point: true },
        encoding: {
          x: { field: 'load', type: 'quantitative', title: 'offered load (req/s)', axis: NUMBER_AXIS },
          y: { field: 'value', type: 'quantitative', title: 'TTFT (ms)', axis: NUMBER_AXIS },
          color: { field: 'series', type: 'nominal', title: null },
        },
        transform: [{ filter: "datum.series === 'TTFT p50' || datum.series === 'TTFT p99'" }],
      },
      {
        width: 300,
        height: 200,
        mark: { type: 'line', point: true, color: '#54a24b' },
        encoding: {
          x: { field: 'load', type: 'quantitative', title: 'offered load (req/s)', axis: NUMBER_AXIS },
          y: { field: 'value', type: 'quantitative', title: 'output tokens/s', axis: NUMBER_AXIS },
        },
        transform: [{ filter: "datum.series === 'output tok/s'" }],
      },
    ],
  } as TopLevelSpec;
}

/** A live run: completions per second and the window's TTFT p99 over the run's clock. */
export function liveSpec(): TopLevelSpec {
  return {
    data: { name: 'points' },
    hconcat: [
      {
        width: 300,
        height: 160,
        mark: { type: 'line', color: '#4c78a8' },
        encoding: { x: { field: 'elapsed_s', type: 'quantitative', title: 'elapsed (s)', axis: NUMBER_AXIS }, y: { field: 'request_rate', type: 'quantitative', title: 'completed req/s', axis: NUMBER_AXIS } },
      },
      {
        width: 300,
        height: 160,
        mark: { type: 'line', color: '#e45756' },
        encoding: { x: { field: 'elapsed_s', type: 'quantitative', title: 'elapsed (s)', axis: NUMBER_AXIS }, y: { field: 'ttft_p99_ms', type: 'quantitative', title: 'TTFT p99 (ms, window)', axis: NUMBER_AXIS } },
      },
    ],
  } as TopLevelSpec;
}

/** Every spec the dashboard draws, as the table holds them (the trend's with TITLE_SLOT). */
export function dashboardChartSpecs(): TopLevelSpec[] {
  return [trendSpec(TITLE_SLOT), loadCurveSpec(), liveSpec()];
}
