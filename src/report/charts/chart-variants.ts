/**
 * Every chart spec the run and sweep reports can draw. A chart's Vega-Lite spec depends on the
 * run only through a few choices (which metric, a log or linear axis, whether failures or SLOs
 * exist, a rate or a concurrency sweep); everything else about the run is in its data. So the
 * specs form a small finite set, compiled to Vega ahead of time (compiled-charts.ts, written by
 * `npm run charts:compile`) and a report need not load Vega-Lite.
 */
import { SLO_METRICS } from '../../metrics/index.js';
import { DISTRIBUTION_METRICS, type MetricDistribution } from '../data/distributions.js';
import type { RunSeries } from '../data/time-series.js';
import { breakdownChart } from './breakdown-charts.js';
import type { Chart } from './chart.js';
import { distributionCharts } from './distribution-charts.js';
import { seriesCharts } from './series-charts.js';
import { timelineChart } from './timeline-chart.js';
import { traceCharts } from './trace-charts.js';
import { overlaidCdfChart } from './overlay-charts.js';
import { batchSweepCharts, SWEEP_LOAD_TITLES, sweepCharts, sweepContextChart } from './sweep-charts.js';

export function chartVariants(): Chart[] {
  const dists: MetricDistribution[] = [];
  for (const metric of DISTRIBUTION_METRICS) {
    for (const scale of ['log', 'linear'] as const) dists.push({ metric, label: SLO_METRICS[metric].label, count: 1, scale, at_or_below_zero: 0, bins: [], cdf: [] });
  }
  const series: RunSeries = { window_s: 1, points: [], errors: [{ t: 0, error_class: 'http_429', count: 1 }], slo: [{ t: 0, objective: 'all', attained: 1, requests: 1 }] };
  return [
    ...distributionCharts(dists),
    ...seriesCharts(series),
    breakdownChart('tasks', '', []).chart,
    breakdownChart('turns', '', []).chart,
    ...Object.values(SWEEP_LOAD_TITLES).flatMap((t) => [...sweepCharts(t), sweepContextChart(t)]),
    ...(['inputs', 'documents'] as const).flatMap((u) => batchSweepCharts(u)),
    timelineChart(true),
    ...traceCharts(),
    ...DISTRIBUTION_METRICS.flatMap((m) => (['log', 'linear'] as const).flatMap((scale) => (['stage', 'run'] as const).map((legend) => overlaidCdfChart(m, scale, legend, '')))),
  ];
}
