/**
 * Charts of a run over time (data/time-series.ts): throughput, in flight, latency
 * percentiles per window, errors by class, SLO attainment, and the arrival schedule against
 * the actual sends.
 */
import type { RunSeries } from '../data/time-series.js';
import { baseSpec, SLO_RULES, sloRuleLayers, type Chart, type Datasets, type LayerItem } from './chart.js';

export function seriesDatasets(s: RunSeries): Datasets {
  return { series: s.points, errors: s.errors, slo: s.slo ?? [] };
}

const T = { field: 't', type: 'quantitative', title: 'time since start (s)' } as const;

function lineChart(id: string, title: string, caption: string, field: string, yTitle: string, color: string): Chart {
  return {
    id,
    title,
    caption,
    datasets: ['series'],
    spec: {
      ...baseSpec(),
      data: { name: 'series' },
      mark: { type: 'line', color, tooltip: true, point: { size: 12, filled: true } },
      encoding: { x: T, y: { field, type: 'quantitative', title: yTitle } },
    },
  };
}

/** Several fields of the series as one line each, e.g. p50/p90/p99; with `sloMetric`, its SLO thresholds as rules. */
function foldedChart(id: string, title: string, caption: string, fields: Array<[string, string]>, yTitle: string, legend: string, sloMetric?: string): Chart {
  const lines: LayerItem = {
    data: { name: 'series' },
    transform: [
      { fold: fields.map(([f]) => f), as: ['key', 'value'] },
      { filter: 'datum.value !== null' },
      { calculate: `{${fields.map(([f, label]) => `${JSON.stringify(f)}: ${JSON.stringify(label)}`).join(', ')}}[datum.key]`, as: legend },
    ],
    mark: { type: 'line', tooltip: true, point: { size: 12, filled: true } },
    encoding: {
      x: T,
      y: { field: 'value', type: 'quantitative', title: yTitle },
      color: { field: legend, type: 'nominal', sort: fields.map(([, l]) => l) },
    },
  };
  if (!sloMetric) return { id, title, caption, datasets: ['series'], spec: { ...baseSpec(), ...lines } as Chart['spec'] };
  return { id, title, caption, datasets: ['series', SLO_RULES], spec: { ...baseSpec(), layer: [lines, ...sloRuleLayers([sloMetric], 'y')] } };
}

export function seriesCharts(s: RunSeries): Chart[] {
  const w = `${s.window_s} s windows`;
  const charts: Chart[] = [
    lineChart('ts-requests', 'Completed requests/s', `ok requests ending in each window (${w}), every phase.`, 'completed_per_s', 'requests/s', '#4c78a8'),
    lineChart('ts-tokens', 'Output tokens/s', `Output tokens by the time their chunk arrived (${w}); a request's tokens are spread over its chunks.`, 'output_tokens_per_s', 'tokens/s', '#54a24b'),
    lineChart('ts-inflight', 'Requests in flight', `Mean number of requests between send and end over each window (${w}).`, 'in_flight', 'requests', '#b279a2'),
    foldedChart('ts-ttft', 'TTFT percentiles per window', `TTFT of ok requests by the window of their first token (${w}).`, [['ttft_p50', 'p50'], ['ttft_p90', 'p90'], ['ttft_p99', 'p99']], 'TTFT (ms)', 'percentile', 'ttft_ms'),
    foldedChart('ts-tpot', 'TPOT percentiles per window', `TPOT of ok requests by the window they ended in (${w}).`, [['tpot_p50', 'p50'], ['tpot_p90', 'p90'], ['tpot_p99', 'p99']], 'TPOT (ms)', 'percentile', 'tpot_ms'),
  ];
  if (s.errors.length > 0) {
    charts.push({
      id: 'ts-errors',
      title: 'Failed requests by class',
      caption: `Failed requests (every non-ok status) by the window they ended in (${w}), stacked by error class.`,
      datasets: ['errors'],
      spec: {
        ...baseSpec(),
        data: { name: 'errors' },
        mark: { type: 'bar', tooltip: true },
        encoding: {
          x: { ...T, bin: false },
          y: { field: 'count', type: 'quantitative', title: 'requests', stack: 'zero' },
          color: { field: 'error_class', type: 'nominal', title: 'class' },
        },
      },
    });
  }
  if (s.slo && s.slo.length > 0) {
    charts.push({
      id: 'ts-slo',
      title: 'SLO attainment per window',
      caption: `Share of the measure-phase requests ending in each window (${w}) that met each SLO (failed requests never do).`,
      datasets: ['slo'],
      spec: {
        ...baseSpec(),
        data: { name: 'slo' },
        mark: { type: 'line', tooltip: true, point: { size: 12, filled: true } },
        encoding: {
          x: T,
          y: { field: 'attained', type: 'quantitative', title: 'attained', axis: { format: '%' }, scale: { domain: [0, 1] } },
          color: { field: 'objective', type: 'nominal', title: 'objective' },
        },
      },
    });
  }
  charts.push(
    foldedChart('ts-schedule', 'Arrival schedule vs. actual sends', `Requests the load model had scheduled by each window's end, and those actually sent (cumulative, ${w}). A gap means the client or a --max-concurrency cap held requests back.`, [['scheduled', 'scheduled'], ['sent', 'sent']], 'requests (cumulative)', 'series'),
    foldedChart('ts-lag', 'Send lag per window', `sent_ms − scheduled_ms of the requests sent in each window (${w}): how late the client sent them.`, [['lag_p50', 'p50'], ['lag_p99', 'p99'], ['lag_max', 'max']], 'send lag (ms)', 'percentile'),
  );
  return charts;
}
