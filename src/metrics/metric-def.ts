/**
 * What a metric is: the interface every definition in `defs/` satisfies. The consumer
 * (`compute`, reports, docs) owns it. A metric is defined once: id, label, unit, formula,
 * and the code that evaluates it.
 */

import type { RequestRecord, RequestStatus } from '../record/record.js';
import type { GoodputMetric as SloMetric } from '../config/slo.js';

export type MetricUnit = 'ms' | 'req/s' | 'tok/s' | 'requests' | 'ratio';

interface MetricBase {
  /** Stable snake_case id, carrying the unit where it has one (`ttft_ms`). */
  readonly id: string;
  /** Short display label (`TTFT`). */
  readonly label: string;
  readonly unit: MetricUnit;
  /** One line: the formula, in the words of docs/metrics.md. */
  readonly formula: string;
}

/** One value per request, summarized as a Distribution. */
export interface RequestMetricDef extends MetricBase {
  readonly kind: 'request';
  readonly unit: 'ms';
  /** Which measure-phase records contribute: ok ones (latencies) or every attempt. */
  readonly over: 'ok' | 'all';
  /** The request's value, or null where the metric is undefined for it (left out of statistics). */
  value(r: RequestRecord): number | null;
  /** For SLO-able metrics: whether a request whose value is null meets an SLO on it. */
  readonly sloWhenUndefined?: 'meets' | 'fails';
  /**
   * `value` as a SQL expression over one row of records.jsonl (the `sql` command's `records`
   * view, metrics/sql-columns.ts): the same float operations in the same order, NULL where
   * `value` is null. Absent: the metric has no column there.
   */
  readonly sql?: string;
}

/** Several values per request (one per chunk gap), pooled across requests. */
export interface PooledMetricDef extends MetricBase {
  readonly kind: 'pooled';
  readonly unit: 'ms';
  readonly over: 'ok';
  /** How many values `fill` writes for this request. */
  count(r: RequestRecord): number;
  /** Writes the request's values into out[at..]; returns the number written. */
  fill(r: RequestRecord, out: Float64Array, at: number): number;
  /** The request's largest value, for a per-request SLO (`every value ≤ threshold`); null if none. */
  worst(r: RequestRecord): number | null;
  readonly sloWhenUndefined: 'meets' | 'fails';
  /**
   * The values are exactly the gaps between consecutive chunk_ms (ITL): they may be visited per
   * step of a shared timeline (chunk-gaps.ts) instead of through `fill`.
   */
  readonly chunkGaps?: true;
}

/** Sums and counts of a run from which the run-level figures are derived. */
export interface RunTotals {
  duration_s: number;
  /** Measure-phase attempts, every status. */
  total: number;
  ok: number;
  by_status: Record<RequestStatus, number>;
  late: number;
  /** Attempts failed by out-of-memory, and ok answers cut short without a reason (defs/stability.ts). */
  oom: number;
  degraded: number;
  /** Attempts superseded by a retry (--retries); not in `total`. */
  retried: number;
  /** Σ length of the client-seen outages in the window (defs/availability.ts), ms. */
  downtime_ms: number;
  /** Σ input / output tokens over ok requests. */
  input_tokens: number;
  output_tokens: number;
  /** Requests meeting every SLO and their Σ output tokens; null without SLOs. */
  good: number | null;
  good_output_tokens: number | null;
  peak_output_tokens_per_s: number;
  peak_concurrency: number;
}

/** A figure of the whole run, derived from its totals. */
export interface RunMetricDef extends MetricBase {
  readonly kind: 'run';
  /** null where undefined for the data (e.g. zero duration, zero requests). */
  value(t: RunTotals): number | null;
}

export type MetricDef = RequestMetricDef | PooledMetricDef | RunMetricDef;

/** Per-request and pooled definitions an SLO may name. */
export type SloMetricDef = (RequestMetricDef | PooledMetricDef) & { readonly id: SloMetric };

/** x / y, or null when y is 0 (a rate over nothing, a throughput over no time). */
export function ratio(x: number, y: number): number | null {
  return y > 0 ? x / y : null;
}
