/** Public API of the metrics module: pure functions of request records. */

export {
  computeMetrics,
  computeMetricsByStage,
  computeMetricsByTask,
  computeOver,
  kept,
  measureRecords,
  measuredWindow,
} from './compute.js';
export type { TimeSpan } from './compute.js';
export { checkSlos, isGood, meetsSlo, sloMetricFromName } from './goodput.js';
export type {
  MetricDef,
  MetricUnit,
  PooledMetricDef,
  RequestMetricDef,
  RunMetricDef,
  RunTotals,
  SloMetricDef,
} from './metric-def.js';
export { peak, secondBuckets } from './peaks.js';
export { addChunkTokens, chunkGapVisitor, gapsSpreadingTokens, type TokenSpread, type WeightedVisitor } from './chunk-gaps.js';
export type { SecondBuckets } from './peaks.js';
export { LATENCY_METRICS, METRICS, MetricRegistry, REASONING_METRICS, SLO_METRICS } from './registry.js';
export { DEFAULT_LATE_THRESHOLD_MS } from './run-totals.js';
export type { MetricsOptions, RunMetrics } from './run-metrics.js';
/** Per-request SLOs (goodput): their vocabulary is config's (config/slo.ts). */
export type { GoodputMetric as SloMetric, GoodputSlo as Slo } from '../config/slo.js';
export { emptyDistribution, percentile, percentileWord, REPORTED_PERCENTILES, summarize, summarizeOwned } from './stats.js';
export type { Distribution, PercentileKey } from './stats.js';
export { objectiveCatalog, OBJECTIVE_METRICS } from './objective-catalog.js';
export { allObjectivesPass, meets, evaluateObjectives, statisticOf } from './objectives.js';
export type { ObjectiveOptions, ObjectiveResult } from './objectives.js';
export { runTotals } from './run-totals.js';
export { ObjectiveWatch } from './objective-watch.js';
