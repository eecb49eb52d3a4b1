/**
 * A pooled metric's values as a weighted multiset: value i stands for weights[i] equal values
 * (weights null: one each). Where records share a step timeline, ITL's gaps come per step with
 * the number of records spanning it (chunk-gaps.ts), so an SLO over ITL holds ~one entry per
 * step, not one per token: an hour at 20 req/s is 92 k entries instead of 9 M.
 *
 * The statistics are those of the expanded multiset: max and every percentile exactly (the
 * same ranks and interpolation as `percentile` over the expanded sorted values); the mean sums
 * value × weight, so it may differ from a per-value sum in the last bits.
 */
import type { Statistic } from '../config/slo.js';
import type { WeightedVisitor } from './chunk-gaps.js';
import { interpolate, percentile } from './stats.js';

export interface WeightedValues {
  values: Float64Array;
  /** null: every value counts once. */
  weights: Float64Array | null;
  n: number;
}

/** Gathers a visitor's batches; weights are stored only once a weighted batch comes. */
export function gatherWeighted(visit: WeightedVisitor): WeightedValues {
  let values = new Float64Array(1024);
  let weights: Float64Array | null = null;
  let n = 0;
  visit((xs, k, ws) => {
    if (n + k > values.length) {
      let cap = values.length;
      while (cap < n + k) cap *= 2;
      const v = new Float64Array(cap);
      v.set(values.subarray(0, n));
      values = v;
      if (weights) {
        const w = new Float64Array(cap);
        w.set(weights.subarray(0, n));
        weights = w;
      }
    }
    if (ws && !weights) {
      weights = new Float64Array(values.length);
      weights.fill(1, 0, n);
    }
    values.set(xs.subarray(0, k), n);
    if (weights) {
      if (ws) weights.set(ws.subarray(0, k), n);
      else weights.fill(1, n, n + k);
    }
    n += k;
  });
  return { values, weights, n };
}

/** The statistic of the expanded multiset; null when it is empty. */
export function weightedStatistic(w: WeightedValues, s: Statistic): number | null {
  const { values, weights, n } = w;
  let total = 0;
  for (let i = 0; i < n; i++) total += weights ? weights[i]! : 1;
  if (total === 0) return null;
  if (s.kind === 'max') {
    let m = -Infinity;
    for (let i = 0; i < n; i++) if (!weights || weights[i]! > 0) m = Math.max(m, values[i]!);
    return m;
  }
  if (s.kind === 'mean') {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += weights ? values[i]! * weights[i]! : values[i]!;
    return sum / total;
  }
  if (!weights) {
    const sorted = values.slice(0, n).sort();
    return percentile(sorted, s.p);
  }
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => values[a]! - values[b]!);
  // percentile() over the expanded sorted values reads ranks lo and lo + 1; find them by cumulative weight.
  const h = (total - 1) * (s.p / 100);
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, total - 1);
  return interpolate(valueAtRank(values, weights, order, lo), valueAtRank(values, weights, order, hi), h - lo);
}

function valueAtRank(values: Float64Array, weights: Float64Array, order: Uint32Array, rank: number): number {
  let cum = 0;
  for (let j = 0; j < order.length; j++) {
    const i = order[j]!;
    cum += weights[i]!;
    if (cum > rank) return values[i]!;
  }
  return values[order[order.length - 1]!]!;
}
