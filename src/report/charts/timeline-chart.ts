/**
 * The timeline chart: client latency and the server's series (data/timeline.ts) in rows that
 * share one time axis, each row with its own y scale and unit; SLO thresholds as dashed rules
 * in their row. Reading down one instant tells "slow because queued" (waiting and queue time
 * rise with TTFT) from "slow because prefill" (prefill time rises, no queue) or "KV pressure"
 * (usage near 100 %, preemptions).
 */
import { CHART_CONFIG, type Chart } from './chart.js';

export const TIMELINE = 'timeline';

export function timelineChart(hasServer: boolean): Chart {
  return {
    id: 'timeline',
    title: hasServer ? 'Client latency against the server’s queue, KV cache and throughput' : 'Client latency over the run',
    caption: hasServer
      ? 'One time axis for every row: when TTFT rises, look down for what rose with it — requests waiting and queue time (queueing), KV usage near 100 % with preemptions (KV pressure), or prefill time alone (prefill-bound). Dashed red lines: SLO thresholds.'
      : 'TTFT and TPOT p50/p99 per window; dashed red lines: SLO thresholds. The server’s series were not observed in this run, so no server rows are drawn.',
    datasets: [TIMELINE],
    wide: true,
    spec: {
      padding: { left: 5, top: 5, bottom: 5, right: 20 },
      config: CHART_CONFIG,
      data: { name: TIMELINE },
      facet: {
        row: {
          field: 'panel',
          type: 'nominal',
          sort: { field: 'order', op: 'min' },
          header: { title: null, labelAngle: 0, labelOrient: 'top', labelAnchor: 'start', labelAlign: 'left', labelFontWeight: 'bold', labelFontSize: 11.5, labelPadding: 2 },
        },
      },
      spacing: 14,
      spec: {
        width: 560,
        height: 80,
        layer: [
          {
            transform: [{ filter: 'isValid(datum.value)' }],
            mark: { type: 'line', tooltip: true, point: { size: 10, filled: true }, strokeWidth: 1.5 },
            encoding: {
              x: { field: 't', type: 'quantitative', title: 'time since start (s)', axis: { format: ',~f' } },
              y: { field: 'value', type: 'quantitative', title: null, axis: { tickCount: 3, format: ',~f' } },
              color: { field: 'series', type: 'nominal', title: null, sort: { field: 'order', op: 'min' }, legend: { orient: 'top', columns: 4 } },
            },
          },
          {
            name: 'slo_rule',
            transform: [{ filter: 'isValid(datum.rule)' }],
            mark: { type: 'rule', color: '#cf222e', strokeDash: [6, 3], strokeWidth: 1.5 },
            encoding: { y: { field: 'rule', type: 'quantitative' } },
          },
          {
            transform: [{ filter: 'isValid(datum.rule)' }],
            mark: { type: 'text', color: '#cf222e', align: 'right', baseline: 'bottom', dy: -3, x: 'width', fontSize: 10.5 },
            encoding: { y: { field: 'rule', type: 'quantitative' }, text: { field: 'series' } },
          },
        ],
      },
      resolve: { scale: { y: 'independent' } },
    },
  };
}
