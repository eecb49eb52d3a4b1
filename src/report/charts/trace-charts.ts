/**
 * The traces join in the report (result.json `traces`, observe/otlp/trace-join.ts): a stacked
 * per-request timeline of the slowest requests — where each one's time went, queue | prefill |
 * other server time | network and client (their sum is the client's TTFT) | decode — and the
 * mean queue, prefill and decode time over the run.
 */
import type { TraceFigures } from '../../observe/otlp/trace-join.js';
import { baseSpec, CHART_CONFIG, CHART_WIDTH, type Chart, type Datasets } from './chart.js';

export const TRACE_SLOWEST = 'trace_slowest';
export const TRACE_OVER_TIME = 'trace_over_time';

/** The stacked segments, in time order along a request. */
export const SLOWEST_SEGMENTS = ['queue', 'prefill', 'other server', 'network + client', 'decode'] as const;
const OVER_TIME_SERIES = ['queue', 'prefill', 'decode'] as const;
const COLORS = ['#e45756', '#4c78a8', '#b279a2', '#9d755d', '#54a24b'];

const r3 = (v: number) => Math.round(v * 1000) / 1000;

/**
 * One row per drawn segment: a segment of unknown (null) or non-positive length is not drawn.
 * Other server time is what the server's TTFT holds beyond queue and prefill (tokenizing,
 * scheduling), drawn only when the span gives all three.
 */
export function slowestRows(t: Pick<TraceFigures, 'slowest_requests'>): Array<{ request: string; order: number; segment: string; seg_order: number; ms: number; ttft_ms: number }> {
  const rows: Array<{ request: string; order: number; segment: string; seg_order: number; ms: number; ttft_ms: number }> = [];
  t.slowest_requests.forEach((q, order) => {
    const other = q.server_ttft_ms !== null && q.queue_ms !== null && q.prefill_ms !== null ? q.server_ttft_ms - q.queue_ms - q.prefill_ms : null;
    const values = [q.queue_ms, q.prefill_ms, other, q.network_client_ms, q.decode_ms];
    const request = `#${q.id} · TTFT ${q.client_ttft_ms.toFixed(0)} ms`;
    values.forEach((v, i) => {
      // Below 1 µs is rounding (server TTFT = queue + prefill in the simulator), not a segment.
      if (v !== null && v >= 0.001) rows.push({ request, order, segment: SLOWEST_SEGMENTS[i]!, seg_order: i, ms: r3(v), ttft_ms: r3(q.client_ttft_ms) });
    });
  });
  return rows;
}

export function overTimeRows(t: Pick<TraceFigures, 'over_time'>): Array<{ t: number; series: string; ms: number; requests: number }> {
  const rows: Array<{ t: number; series: string; ms: number; requests: number }> = [];
  for (const p of t.over_time?.points ?? []) {
    const values = [p.queue_ms, p.prefill_ms, p.decode_ms];
    values.forEach((v, i) => {
      if (v !== null) rows.push({ t: p.t, series: OVER_TIME_SERIES[i]!, ms: r3(v), requests: p.requests });
    });
  }
  return rows;
}

export function traceDatasets(t: Pick<TraceFigures, 'slowest_requests' | 'over_time'>): Datasets {
  return { [TRACE_SLOWEST]: slowestRows(t), [TRACE_OVER_TIME]: overTimeRows(t) };
}

export function traceCharts(): Chart[] {
  return [
    {
      id: 'trace-slowest',
      title: 'The slowest requests, explained',
      caption:
        'One bar per request, slowest TTFT at the top: time queued, in prefill, other server time (tokenizing, scheduling: the server’s TTFT beyond queue and prefill), network and client (the client’s TTFT minus the server’s), then decode. The first four add up to the TTFT the client measured.',
      datasets: [TRACE_SLOWEST],
      spec: {
        width: CHART_WIDTH,
        height: { step: 16 },
        padding: { left: 5, top: 5, bottom: 5, right: 20 },
        config: CHART_CONFIG,
        data: { name: TRACE_SLOWEST },
        mark: { type: 'bar', tooltip: true },
        encoding: {
          y: { field: 'request', type: 'nominal', title: null, sort: { field: 'order', op: 'min' } },
          x: { field: 'ms', type: 'quantitative', title: 'ms since the request was sent', stack: 'zero' },
          color: { field: 'segment', type: 'nominal', title: null, scale: { domain: [...SLOWEST_SEGMENTS], range: COLORS }, legend: { orient: 'top', columns: 5 } },
          order: { field: 'seg_order', type: 'quantitative' },
        },
      },
    },
    {
      id: 'trace-over-time',
      title: 'Queue, prefill and decode over the run',
      caption: 'Mean time queued, in prefill and in decode of the requests sent in each window, from the server’s spans: a rising queue with flat prefill is queueing, rising prefill alone is prefill-bound.',
      datasets: [TRACE_OVER_TIME],
      spec: {
        ...baseSpec(),
        data: { name: TRACE_OVER_TIME },
        mark: { type: 'line', tooltip: true, point: { size: 10, filled: true }, strokeWidth: 1.5 },
        encoding: {
          x: { field: 't', type: 'quantitative', title: 'time since start (s)', axis: { format: ',~f' } },
          y: { field: 'ms', type: 'quantitative', title: 'ms (mean per window)' },
          color: { field: 'series', type: 'nominal', title: null, scale: { domain: [...OVER_TIME_SERIES], range: [COLORS[0]!, COLORS[1]!, COLORS[4]!] } },
        },
      },
    },
  ];
}
