/**
 * The first screen's small load curve: where this run sits on a sweep of the same target and
 * workload (history/sweep-match.ts finds it), drawn and said in words. Nothing at all when the
 * caller found no such sweep.
 */
import type { SweepContext } from '../../analysis/load-curve.js';
import { curveKind } from '../../analysis/load-curve.js';
import type { Chart, Datasets } from '../charts/chart.js';
import { SWEEP_LOAD_TITLES, SWEEP_RUN_POINT, sweepContextChart, type SweepMarker, type SweepPoint } from '../charts/sweep-charts.js';
import type { RunResult } from '../result-json.js';
import { escapeHtml as e } from './escape.js';

export interface SweepContextView {
  html: string;
  charts: Chart[];
  datasets: Datasets;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The run's offered load on an axis of `kind`, or null when it has no place there (another kind of load, all at once, a trace replay). */
export function runLoadOn(kind: 'rate' | 'concurrency', load: Record<string, unknown>): number | null {
  if (load.mode === 'trace') return null;
  return kind === 'rate' ? (load.mode === 'closed' ? null : num(load.request_rate)) : load.mode === 'closed' ? num(load.concurrency) : null;
}

/** The caption in words: where the run's load sits against the sweep's knee and saturation point. */
export function sweepContextCaption(ctx: SweepContext, kind: 'rate' | 'concurrency', runLoad: number | null): string {
  const unit = (v: number) => (kind === 'rate' ? `${v} req/s` : `concurrency ${v}`);
  const stages = ctx.stages.filter((s) => s.kind === kind);
  const loads = stages.map((s) => s.load);
  const range = `${stages.length} stage${stages.length === 1 ? '' : 's'}, ${unit(Math.min(...loads))} to ${unit(Math.max(...loads))}`;
  const from = `Sweep ${ctx.sweep} (${range}, started ${ctx.started_at}) ran the same target and workload.`;
  if (runLoad === null) return `${from} This run’s load has no place on its ${kind === 'rate' ? 'request-rate' : 'concurrency'} axis, so the curve is shown alone.`;
  const here = `This run at ${unit(runLoad)}`;
  let where: string;
  if (ctx.knee === null) where = `${here} is on a sweep that found no knee: its p99 latency did not bend upward over the loads it tried`;
  else if (runLoad > ctx.knee) where = `${here} sits past the sweep’s knee at ${unit(ctx.knee)}: tail latency climbs fastest here, and a load at or below ${unit(ctx.knee)} keeps headroom`;
  else if (runLoad === ctx.knee) where = `${here} sits at the sweep’s knee: tail latency climbs fastest from here on`;
  else where = `${here} sits below the sweep’s knee at ${unit(ctx.knee)}: there is headroom before tail latency bends upward`;
  const saturated = ctx.saturation !== null && runLoad >= ctx.saturation ? `; it is at or past the saturation point at ${unit(ctx.saturation)}, where more load no longer buys throughput` : '';
  const beyond = runLoad > Math.max(...loads) ? `; it is beyond the sweep’s highest stage, so the curve says nothing of this load itself` : runLoad < Math.min(...loads) ? `; it is below the sweep’s lowest stage` : '';
  return `${from} ${where}${saturated}${beyond}.`;
}

/** The curve, its data and its caption; null without a sweep or when no stage has a load of the curve's kind. */
export function sweepContextView(ctx: SweepContext | null | undefined, result: RunResult): SweepContextView | null {
  if (!ctx || ctx.stages.length === 0) return null;
  const kind = curveKind(ctx.stages.map((s) => s.kind));
  const stages = ctx.stages.filter((s) => s.kind === kind);
  const points: SweepPoint[] = stages.map((s) => ({
    load: s.load,
    stage: s.stage,
    ttft_p50: null,
    ttft_p99: s.ttft_p99_ms,
    tpot_p50: null,
    tpot_p99: null,
    e2el_p50: null,
    e2el_p99: s.e2el_p99_ms,
    request_per_s: null,
    output_tokens_per_s: null,
    goodput_request_per_s: null,
  }));
  const markers: SweepMarker[] = [];
  if (ctx.saturation !== null) markers.push({ load: ctx.saturation, label: 'saturation' });
  if (ctx.knee !== null) markers.push({ load: ctx.knee, label: 'knee' });
  const runLoad = runLoadOn(kind, result.load);
  const lat = result.metrics.latency;
  const own =
    runLoad === null
      ? []
      : [
          { load: runLoad, value: lat.ttft_ms.p99, figure: 'this run: TTFT p99' },
          { load: runLoad, value: lat.e2el_ms.p99, figure: 'this run: E2EL p99' },
        ].filter((p) => p.value !== null && p.value > 0);
  const caption = sweepContextCaption(ctx, kind, runLoad);
  return {
    html: `<p class="sweep-context" data-sweep="${e(ctx.sweep)}">${e(caption)}</p>`,
    charts: [sweepContextChart(SWEEP_LOAD_TITLES[kind])],
    datasets: { sweep_points: points, sweep_markers: markers, [SWEEP_RUN_POINT]: own },
  };
}
