/**
 * The result of `computeMetrics`: every figure of one run (or one task / stage of it),
 * derived from the measure-phase records alone. Versioned by `schema`; field names are
 * snake_case and carry their unit. See docs/metrics.md for each formula.
 *
 * Conventions: a figure that is undefined for the data (a rate over zero requests, a
 * throughput over a zero-length window, a statistic of zero values) is `null`, never NaN
 * or Infinity, so results survive JSON.
 */

import type { OfferedWindow } from './offered-window.js';
import type { ErrorClass, RequestStatus, TokenSource } from '../record/record.js';
import type { GoodputSlo as Slo } from '../config/slo.js';
import type { Distribution } from './stats.js';
import type { Outage } from './defs/availability.js';
import type { BatchFigures } from './batch-figures.js';
import type { InputUnit } from '../record/input-unit.js';
import type { MediaFigures } from './media-figures.js';

export interface MetricsOptions {
  /** Per-request SLOs for goodput; goodput is null when absent or empty. */
  slos?: readonly Slo[];
  /** A request is late when sent_ms − scheduled_ms > lateThresholdMs. Default 10. */
  lateThresholdMs?: number;
  /**
   * Further percentiles (each 0 < p < 100) of every latency Distribution, in its `percentiles`
   * (`--metric-percentiles`); computed exactly, by the rule of p50…p99_9. Absent: none.
   */
  percentiles?: readonly number[];
  /** What batched requests' inputs are (the endpoint kind's; record/input-unit.ts); default `inputs`. */
  inputUnit?: InputUnit;
}

export interface RunMetrics {
  schema: 'infermeter.metrics/1';
  /**
   * Measured window (null when empty): first measure-phase sent_ms → the later of the last
   * end_ms of a request that was not cancelled and the last sent_ms (cancelled requests count
   * until their send; see measuredWindow).
   */
  start_ms: number | null;
  end_ms: number | null;
  /** (end_ms − start_ms) / 1000; 0 when there are no measure-phase records. */
  duration_s: number;
  requests: {
    /** Measure-phase attempts, every status. */
    total: number;
    ok: number;
    /** total − ok. */
    failed: number;
    by_status: Record<RequestStatus, number>;
    by_error_class: Partial<Record<ErrorClass, number>>;
    /** Attempts with sent_ms − scheduled_ms > late_threshold_ms (all statuses). */
    late: number;
    late_threshold_ms: number;
    /** status 'error' / total (null when total is 0). */
    error_rate: number | null;
    /** status 'timeout' / total. */
    timeout_rate: number | null;
    /** status 'cancelled' / total. */
    cancel_rate: number | null;
    /** failed / total: every non-ok status. */
    failure_rate: number | null;
    /** Failed attempts whose error says the server ran out of memory, and their share of total. */
    oom: number;
    oom_rate: number | null;
    /** ok answers shorter than max_tokens without an explaining finish_reason, and their share. */
    degraded: number;
    degraded_rate: number | null;
    /** Attempts superseded by a retry (--retries; every attempt is a record), and retried attempts per request. */
    retried: number;
    retry_rate: number | null;
  };
  tokens: {
    /** Σ input tokens of ok requests: prompt_tokens, else client_prompt_tokens. */
    input_total: number;
    /** ok requests with neither prompt_tokens nor client_prompt_tokens (counted as 0). */
    input_unknown: number;
    /** Σ output_tokens of ok requests. */
    output_total: number;
    /** Σ requested_output_tokens of ok requests; null unless every ok request has one. */
    output_requested_total: number | null;
    /** ok requests by where their output count came from. */
    token_sources: Partial<Record<TokenSource, number>>;
  };
  throughput: {
    request_per_s: number | null;
    output_tokens_per_s: number | null;
    total_tokens_per_s: number | null;
    /** Most output tokens of ok requests in one 1-second bucket. */
    peak_output_tokens_per_s: number;
    /** Most requests (any status) in flight at one instant. */
    peak_concurrency: number;
    /** Throughput over first send → last send (metrics/offered-window.ts); null when that span is under 1 s. Absent in results before 0.3. */
    offered_window?: OfferedWindow | null;
  };
  latency: {
    ttft_ms: Distribution;
    ttft_from_schedule_ms: Distribution;
    tpot_ms: Distribution;
    itl_ms: Distribution;
    e2el_ms: Distribution;
    e2el_from_schedule_ms: Distribution;
    /** Over every measure-phase attempt, not only ok ones. */
    schedule_lag_ms: Distribution;
  };
  /**
   * The server's availability as the client saw it (metrics/defs/availability.ts): outages are
   * ≥ 3 consecutive connect/disconnect/5xx failures with no ok request between, until the next
   * ok send. Absent in results from before it existed.
   */
  availability?: {
    /** 1 − downtime / duration; null for a run of no duration. */
    value: number | null;
    downtime_s: number;
    outages: Outage[];
  };
  /**
   * Reasoning models (null when no measured ok request carried reasoning). Latencies are over
   * every ok request; one without reasoning counts with TTFAT = TTFT and answer TPOT = TPOT.
   */
  reasoning?: null | {
    /** ok requests whose response carried reasoning. */
    requests: number;
    /** Σ reasoning_tokens and Σ answer tokens (output_tokens − reasoning_tokens) of ok requests. */
    reasoning_tokens_total: number;
    answer_tokens_total: number;
    latency: {
      ttfat_ms: Distribution;
      reasoning_ms: Distribution;
      answer_tpot_ms: Distribution;
    };
  };
  /**
   * Batched requests that generate nothing (embeddings; metrics/batch-figures.ts): null when no
   * measured ok request carried `inputs`. Absent in results from before endpoint kinds.
   */
  batch?: BatchFigures | null;
  /**
   * Requests that carried images or audio (metrics/media-figures.ts): null when no measured ok
   * request did. Absent in results from before media (additive).
   */
  media?: MediaFigures | null;
  goodput: null | {
    slos: Slo[];
    /** ok requests meeting every SLO. */
    good: number;
    request_per_s: number | null;
    /** Σ output_tokens of good requests / duration. */
    output_tokens_per_s: number | null;
    /** good / total (every measure-phase attempt; failed ones never attain). */
    attained: number | null;
  };
}
