/**
 * The dashboard's charts: Vega-Lite specs rendered to SVG on the server (vega's headless view),
 * so the page needs no charting code and no network: an <img> of a local URL.
 */
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

const CONFIG = {
  font: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  axis: { labelFontSize: 11, titleFontSize: 12, gridColor: '#e6e6e6' },
  legend: { labelFontSize: 11, titleFontSize: 12, orient: 'top' },
  view: { stroke: null },
} as const;

export async function renderSvg(spec: TopLevelSpec, values: object[]): Promise<string> {
  const full = { ...spec, config: CONFIG, background: 'white', padding: 8 } as TopLevelSpec;
  const view = new vega.View(vega.parse(compile(full).spec), { renderer: 'none' });
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
