/**
 * The SLO thresholds the charts draw as rules: one row per bound on a charted metric, from
 * result.json's `slos` (windowed objectives such as p99(ttft) ≤ 500 ms) and its goodput
 * objectives (a bound every request is held to). A chart of metric M draws the rows whose
 * `metric` is M, so one dataset serves every chart and a chart's spec does not depend on
 * whether the run had SLOs.
 */
import type { ObjectiveResult, Slo } from '../../metrics/index.js';
import { SLO_METRICS } from '../../metrics/index.js';
import { formatInUnit } from '../units.js';

export interface SloRule {
  /** Registry id of the bounded metric: ttft_ms, tpot_ms, itl_ms, e2el_ms, output_throughput, … */
  metric: string;
  /** The threshold in the metric's unit (ms for latencies). */
  value: number;
  /** What the rule's label says, e.g. "SLO p99 ≤ 500 ms". */
  label: string;
}

const OP: Record<string, string> = { '<=': '≤', '<': '<', '>=': '≥', '>': '>' };

export function sloRules(objectives: readonly ObjectiveResult[] | null | undefined, goodput: readonly Slo[] = []): SloRule[] {
  const rules: SloRule[] = [];
  const seen = new Set<string>();
  const add = (r: SloRule) => {
    const key = `${r.metric}\u0000${r.label}`;
    if (seen.has(key)) return;
    seen.add(key);
    rules.push(r);
  };
  for (const o of objectives ?? []) {
    if (!Number.isFinite(o.threshold)) continue;
    const stat = o.statistic ? `${o.statistic} ` : '';
    add({ metric: o.metric, value: o.threshold, label: `SLO ${stat}${OP[o.op] ?? o.op} ${formatInUnit(o.threshold, o.unit)}` });
  }
  for (const s of goodput) add({ metric: s.metric, value: s.threshold_ms, label: `goodput: ${SLO_METRICS[s.metric]?.label ?? s.metric} ≤ ${formatInUnit(s.threshold_ms, 'ms')} per request` });
  return rules;
}
