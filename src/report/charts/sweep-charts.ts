/**
 * Sweep curves: offered load → latency percentiles, throughput and goodput, one point per
 * stage, with the saturation point and the knee marked as vertical rules (from sweep.json's
 * `analysis`, docs/sweep-schema.md).
 */
import { baseSpec, SLO_RULES, sloRuleLayers, type Chart, type LayerItem } from './chart.js';

export interface SweepPoint {
  load: number;
  stage: number;
  ttft_p50: number | null;
  ttft_p99: number | null;
  tpot_p50: number | null;
  tpot_p99: number | null;
  e2el_p50: number | null;
  e2el_p99: number | null;
  request_per_s: number | null;
  output_tokens_per_s: number | null;
  goodput_request_per_s: number | null;
  /** A batch-size sweep: inputs/s (rerank, score: documents/s). */
  inputs_per_s?: number | null;
}

export interface SweepMarker {
  load: number;
  label: string;
}

/** `extra`: layers drawn over the curve, reading the datasets `extraData` (a single run's own point). */
function curve(id: string, title: string, caption: string, loadTitle: string, fields: Array<[keyof SweepPoint, string]>, yTitle: string, log: boolean, sloMetrics: string[], extra: { layers: LayerItem[]; data: string[] } = { layers: [], data: [] }): Chart {
  const labels = `{${fields.map(([f, l]) => `${JSON.stringify(f)}: ${JSON.stringify(l)}`).join(', ')}}`;
  return {
    id,
    title,
    caption,
    datasets: ['sweep_points', 'sweep_markers', SLO_RULES, ...extra.data],
    spec: {
      ...baseSpec(),
      layer: [
        {
          data: { name: 'sweep_points' },
          transform: [
            { fold: fields.map(([f]) => f), as: ['key', 'value'] },
            { filter: 'datum.value !== null && datum.value > 0' },
            { calculate: `${labels}[datum.key]`, as: 'figure' },
          ],
          mark: { type: 'line', point: true, tooltip: true },
          encoding: {
            x: { field: 'load', type: 'quantitative', title: loadTitle, scale: { zero: false, padding: 24 } },
            y: { field: 'value', type: 'quantitative', title: yTitle, ...(log ? { scale: { type: 'log' as const } } : {}) },
            color: { field: 'figure', type: 'nominal', title: null, sort: fields.map(([, l]) => l) },
          },
        },
        {
          data: { name: 'sweep_markers' },
          mark: { type: 'rule', strokeDash: [4, 3], color: '#888' },
          encoding: { x: { field: 'load', type: 'quantitative' } },
        },
        {
          // Along the rule, inside the plot: a label at the right edge is never clipped.
          data: { name: 'sweep_markers' },
          mark: { type: 'text', angle: 270, align: 'right', baseline: 'bottom', dx: -4, dy: -3, color: '#555', y: 0 },
          encoding: { x: { field: 'load', type: 'quantitative' }, text: { field: 'label' } },
        },
        ...sloRuleLayers(sloMetrics, 'y'),
        ...extra.layers,
      ],
    },
  };
}

/** The load axis's title of each kind of sweep. */
export const SWEEP_LOAD_TITLES = { rate: 'offered load (requests/s)', concurrency: 'concurrency' } as const;

export function sweepCharts(loadTitle: string): Chart[] {
  const marks = 'Grey dashed lines: the saturation point and the knee found by the sweep analysis; red: SLO thresholds.';
  return [
    curve('sweep-ttft', 'Load → TTFT', `TTFT p50 and p99 of each stage (log scale). ${marks}`, loadTitle, [['ttft_p50', 'TTFT p50'], ['ttft_p99', 'TTFT p99']], 'ms', true, ['ttft_ms']),
    curve('sweep-tpot', 'Load → TPOT and E2E latency', `TPOT and E2E latency p50 and p99 of each stage (log scale). ${marks}`, loadTitle, [['tpot_p50', 'TPOT p50'], ['tpot_p99', 'TPOT p99'], ['e2el_p50', 'E2EL p50'], ['e2el_p99', 'E2EL p99']], 'ms', true, ['tpot_ms', 'e2el_ms']),
    curve('sweep-throughput', 'Load → throughput and goodput', `Completed requests/s and goodput (requests/s meeting every per-request SLO) of each stage. ${marks}`, loadTitle, [['request_per_s', 'requests/s'], ['goodput_request_per_s', 'goodput req/s']], 'requests/s', false, ['request_throughput', 'goodput']),
    curve('sweep-tokens', 'Load → output tokens/s', `Output tokens/s of each stage. ${marks}`, loadTitle, [['output_tokens_per_s', 'output tokens/s']], 'tokens/s', false, ['output_throughput']),
  ];
}

/**
 * A batch-size sweep's charts (`sweep_points` with `load` = the batch size): inputs/s (documents/s)
 * and E2E latency against the batch size. No saturation or knee rules: the curve analysis reads
 * load on the x axis, and every stage of this sweep has the same load.
 */
export function batchSweepCharts(unit: string): Chart[] {
  const x = `batch size (${unit} per request)`;
  return [
    curve('sweep-batch-inputs', `Batch size → ${unit}/s`, `${unit[0]!.toUpperCase()}${unit.slice(1)}/s of each stage, every stage at the same load.`, x, [['inputs_per_s', `${unit}/s`]], `${unit}/s`, false, []),
    curve('sweep-batch-latency', 'Batch size → E2E latency', 'E2E latency p50 and p99 of each stage (log scale); red: SLO thresholds.', x, [['e2el_p50', 'E2EL p50'], ['e2el_p99', 'E2EL p99']], 'ms', true, ['e2el_ms']),
  ];
}

/** A single run's own point on a sweep's curve: rows {load, value, figure} (report/html/sweep-context.ts). */
export const SWEEP_RUN_POINT = 'sweep_run_point';

/**
 * The first screen's small curve: a sweep of the run's target and workload, TTFT and E2E latency
 * p99 per stage, with the run's own figures as black diamonds at its offered load.
 */
export function sweepContextChart(loadTitle: string): Chart {
  const runPoint: LayerItem = {
    data: { name: SWEEP_RUN_POINT },
    mark: { type: 'point', shape: 'diamond', size: 150, filled: true, color: '#111', stroke: '#fff', strokeWidth: 1, opacity: 1, tooltip: true },
    encoding: { x: { field: 'load', type: 'quantitative' }, y: { field: 'value', type: 'quantitative' } },
  } as LayerItem;
  return curve(
    'overview-sweep',
    'This run on the sweep’s load curve',
    'TTFT and E2E latency p99 of each stage of a sweep of the same target and workload (log scale); black diamonds: this run’s own p99s at its load. Grey dashed lines: the sweep’s saturation point and knee; red: SLO thresholds.',
    loadTitle,
    [['ttft_p99', 'TTFT p99'], ['e2el_p99', 'E2EL p99']],
    'ms',
    true,
    ['ttft_ms', 'e2el_ms'],
    { layers: [runPoint], data: [SWEEP_RUN_POINT] },
  );
}
