/**
 * The metric registry: one explicit list of every definition (no discovery, no work at
 * import time beyond building this list). Ids are unique and stable; reports and docs
 * iterate it.
 */

import type { MetricDef, SloMetricDef } from './metric-def.js';
import type { GoodputMetric as SloMetric } from '../config/slo.js';
import { cancelRate, errorRate, failureRate, lateRequests, timeoutRate } from './defs/errors.js';
import { itl } from './defs/itl.js';
import { e2el, e2elFromSchedule, scheduleLag, ttft, ttftFromSchedule } from './defs/latency.js';
import {
  goodput,
  goodputAttained,
  goodputOutputThroughput,
  outputThroughput,
  peakConcurrency,
  peakOutputThroughput,
  requestThroughput,
  totalTokenThroughput,
} from './defs/throughput.js';
import { tpot } from './defs/tpot.js';
import { answerTpot, reasoningDuration, ttfat } from './defs/reasoning.js';
import { degradedRate, oomRate, retryRate } from './defs/stability.js';
import { availability } from './defs/availability.js';

export class MetricRegistry {
  readonly all: readonly MetricDef[];
  private readonly byId: ReadonlyMap<string, MetricDef>;

  /** @throws Error naming the id when two definitions share one, or an id is not snake_case. */
  constructor(defs: readonly MetricDef[]) {
    const byId = new Map<string, MetricDef>();
    for (const d of defs) {
      if (!/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(d.id)) throw new Error(`metric id "${d.id}" is not snake_case`);
      if (byId.has(d.id)) throw new Error(`duplicate metric id "${d.id}"`);
      byId.set(d.id, d);
    }
    this.all = [...defs];
    this.byId = byId;
  }

  get(id: string): MetricDef | undefined {
    return this.byId.get(id);
  }
}

/** The per-request and pooled latency metrics, in report order. */
export const LATENCY_METRICS = [ttft, ttftFromSchedule, tpot, itl, e2el, e2elFromSchedule, scheduleLag] as const;

/** Reasoning-model latencies, in report order (RunMetrics.reasoning). */
export const REASONING_METRICS = [ttfat, reasoningDuration, answerTpot] as const;

/** Metrics a per-request SLO (goodput) may name, by id. */
export const SLO_METRICS: Readonly<Record<SloMetric, SloMetricDef>> = {
  ttft_ms: ttft,
  ttft_from_schedule_ms: ttftFromSchedule,
  tpot_ms: tpot,
  itl_ms: itl,
  e2el_ms: e2el,
  e2el_from_schedule_ms: e2elFromSchedule,
};

export const METRICS = new MetricRegistry([
  ...LATENCY_METRICS,
  ...REASONING_METRICS,
  requestThroughput,
  outputThroughput,
  totalTokenThroughput,
  goodput,
  goodputOutputThroughput,
  goodputAttained,
  peakOutputThroughput,
  peakConcurrency,
  failureRate,
  oomRate,
  degradedRate,
  availability,
  retryRate,
  errorRate,
  timeoutRate,
  cancelRate,
  lateRequests,
]);
