/**
 * SLO evaluation: tumbling windows over the measured phase, attainment = share of windows that
 * meet the objective. Pure: records and objectives in, one result per objective out.
 *
 *   measured phase  |start                                             end|
 *   window 5m       |   w0   |   w1   |   w2   |   w3   |  w4 (shorter)  |
 *   request         assigned to the window holding its end_ms (when it completed, as a
 *                   server-side histogram observes it); measure-phase requests only
 *
 * Windows: n = max(1, ⌈(end − start) / W⌉); window k covers [start + kW, start + (k+1)W), the
 * last one also holds `end` and may be shorter. A run no longer than W is one window and the
 * result says so (`windows.whole_run`). Without a window the whole phase is one window.
 *
 * Per window: a distribution metric's statistic (pNN by numpy's linear interpolation, mean or
 * max) over the window's values, or a run metric over the window's totals with the window's
 * length as duration. A window with no value (no requests completed in it, or none with a
 * value for the metric) is not evaluated. Attainment = met / evaluated windows; the SLO passes
 * when at least one window was evaluated and attainment ≥ the target.
 */

import type { Comparison, GoodputSlo, Objective, Statistic } from '../config/slo.js';
import type { RequestRecord } from '../record/record.js';
import { measuredWindow, measureRecords } from './compute.js';
import type { MetricDef } from './metric-def.js';
import { METRICS } from './registry.js';
import { runTotals, type TimeSpan } from './run-totals.js';
import { chunkGapVisitor } from './chunk-gaps.js';
import { percentile } from './stats.js';
import { gatherWeighted, weightedStatistic } from './weighted-values.js';
import { stepStretchOf } from '../record/step-stretch.js';

export interface ObjectiveResult {
  /** Canonical text, e.g. `p99(ttft) <= 500ms over 5m >= 99.9%`. */
  slo: string;
  metric: string;
  unit: Objective['unit'];
  /** `p95`, `mean`, `max`; null for run metrics. */
  statistic: string | null;
  op: Comparison;
  threshold: number;
  /** null: no window was given (the whole measured phase is one window). */
  window_ms: number | null;
  attainment_target: number;
  /** The statistic over the whole measured phase (null without data). */
  value: number | null;
  windows: {
    /** Windows the measured phase spans. */
    total: number;
    /** Windows with a value (the others held no completed request with one). */
    evaluated: number;
    met: number;
    /** True when the measured phase is one window: no window given, or a run no longer than it. */
    whole_run: boolean;
  };
  /** met / evaluated; null when no window was evaluated. */
  attainment: number | null;
  /** The window farthest on the wrong side of the threshold (highest for <, lowest for >). */
  worst_window: { index: number; start_ms: number; end_ms: number; value: number } | null;
  pass: boolean;
  /** One line: why it passed or failed. */
  reason: string;
}

export interface ObjectiveOptions {
  /** Per-request SLOs: what a `goodput` objective counts as good. */
  goodput?: readonly GoodputSlo[];
}

/** Whether `value op threshold` holds (an objective met by this value). */
export function meets(value: number, op: Comparison, threshold: number): boolean {
  switch (op) {
    case '<':
      return value < threshold;
    case '<=':
      return value <= threshold;
    case '>':
      return value > threshold;
    case '>=':
      return value >= threshold;
  }
}

/** Evaluates every objective over the measure-phase records. */
export function evaluateObjectives(
  records: readonly RequestRecord[],
  objectives: readonly Objective[],
  opts: ObjectiveOptions = {},
): ObjectiveResult[] {
  const measure = measureRecords(records);
  const span = measuredWindow(measure);
  return objectives.map((o) => evaluateOne(measure, span, o, opts.goodput ?? []));
}

/** The objective's metric statistic over `records` spanning `window`; null when undefined. */
export function objectiveValue(
  o: Objective,
  records: readonly RequestRecord[],
  window: TimeSpan | null,
  goodput: readonly GoodputSlo[],
): number | null {
  const def = METRICS.get(o.metric);
  if (!def) throw new RangeError(`unknown metric "${o.metric}"`);
  if (def.kind === 'run') return window === null ? null : def.value(runTotals(records, window, goodput));
  const statistic = o.statistic ?? { kind: 'max' as const };
  if (def.kind === 'pooled' && def.chunkGaps) {
    // Records on a shared step timeline (virtual time): each step's gap once, weighted by the
    // records spanning it, instead of a copy of every gap (weighted-values.ts; exact).
    const pop = population(def, records);
    if (pop.some((r) => stepStretchOf(r) !== null)) return weightedStatistic(gatherWeighted(chunkGapVisitor(pop, def.fill)), statistic);
  }
  return statisticOf(valuesOf(def, records), statistic);
}

function evaluateOne(measure: readonly RequestRecord[], span: TimeSpan | null, o: Objective, goodput: readonly GoodputSlo[]): ObjectiveResult {
  const value = objectiveValue(o, measure, span, goodput);
  const duration = span === null ? 0 : span.end_ms - span.start_ms;
  const wholeRun = o.window_ms === null || duration <= o.window_ms;
  const base = {
    slo: o.text,
    metric: o.metric,
    unit: o.unit,
    statistic: o.statistic === null ? null : o.statistic.kind === 'percentile' ? `p${o.statistic.p}` : o.statistic.kind,
    op: o.op,
    threshold: o.threshold,
    window_ms: o.window_ms,
    attainment_target: o.attainment,
    value,
  };
  if (span === null) {
    return { ...base, windows: { total: 0, evaluated: 0, met: 0, whole_run: true }, attainment: null, worst_window: null, pass: false, reason: 'no measured requests' };
  }

  const windows: Array<{ index: number; start_ms: number; end_ms: number; value: number | null }> = [];
  if (wholeRun) windows.push({ index: 0, start_ms: span.start_ms, end_ms: span.end_ms, value });
  else {
    const w = o.window_ms!;
    const n = Math.max(1, Math.ceil(duration / w));
    const groups: RequestRecord[][] = Array.from({ length: n }, () => []);
    for (const r of measure) groups[Math.min(n - 1, Math.max(0, Math.floor((r.end_ms - span.start_ms) / w)))]!.push(r);
    for (let k = 0; k < n; k++) {
      const win = { start_ms: span.start_ms + k * w, end_ms: Math.min(span.end_ms, span.start_ms + (k + 1) * w) };
      windows.push({ index: k, ...win, value: groups[k]!.length === 0 ? null : objectiveValue(o, groups[k]!, win, goodput) });
    }
  }

  let evaluated = 0;
  let met = 0;
  let worst: ObjectiveResult['worst_window'] = null;
  const higherIsWorse = o.op === '<' || o.op === '<=';
  for (const w of windows) {
    if (w.value === null) continue;
    evaluated++;
    if (meets(w.value, o.op, o.threshold)) met++;
    if (worst === null || (higherIsWorse ? w.value > worst.value : w.value < worst.value)) {
      worst = { index: w.index, start_ms: w.start_ms, end_ms: w.end_ms, value: w.value };
    }
  }
  const attainment = evaluated > 0 ? met / evaluated : null;
  // A tolerance for the float in `met / evaluated ≥ 0.999`.
  const pass = attainment !== null && attainment >= o.attainment - 1e-12;
  const reason =
    attainment === null
      ? `no value: no window held a completed request with a ${o.metric}`
      : wholeRun
        ? `${pass ? 'met' : 'missed'} over the whole measured phase${o.window_ms !== null ? ` (shorter than the ${o.window_ms / 1000} s window: one window)` : ''}`
        : `${met} of ${evaluated} windows met it (${pct(attainment)}${pass ? ' ≥ ' : ' < '}${pct(o.attainment)} required)`;
  return { ...base, windows: { total: windows.length, evaluated, met, whole_run: wholeRun }, attainment, worst_window: worst, pass, reason };
}

const pct = (v: number) => `${Number((v * 100).toPrecision(6))}%`;

/** A distribution metric's population: ok requests (or all for over: 'all'), a request's last attempt only (--retries). */
function population(def: Exclude<MetricDef, { kind: 'run' }>, records: readonly RequestRecord[]): RequestRecord[] {
  return records.filter((r) => !r.retried && (def.over !== 'ok' || r.status === 'ok'));
}

/** Values of a distribution metric over its population. */
function valuesOf(def: Exclude<MetricDef, { kind: 'run' }>, records: readonly RequestRecord[]): Float64Array {
  const pop = population(def, records);
  if (def.kind === 'pooled') {
    let n = 0;
    for (const r of pop) n += def.count(r);
    const out = new Float64Array(n);
    let at = 0;
    for (const r of pop) at += def.fill(r, out, at);
    return out;
  }
  const out = new Float64Array(pop.length);
  let k = 0;
  for (const r of pop) {
    const v = def.value(r);
    if (v !== null) out[k++] = v;
  }
  return out.subarray(0, k);
}

/** A statistic of values (sorted in place); null when there are none. */
export function statisticOf(values: Float64Array, s: Statistic): number | null {
  if (values.length === 0) return null;
  if (s.kind === 'mean') {
    let sum = 0;
    for (const v of values) sum += v;
    return sum / values.length;
  }
  if (s.kind === 'max') {
    let m = -Infinity;
    for (const v of values) m = Math.max(m, v);
    return m;
  }
  values.sort();
  return percentile(values, s.p);
}

/** True when every objective passed (vacuously for none). */
export function allObjectivesPass(results: readonly ObjectiveResult[]): boolean {
  return results.every((r) => r.pass);
}
