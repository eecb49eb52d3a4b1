/**
 * Cost figures of a run: what the GPUs cost over the measured window, per request, per
 * successful request and per token, and what the same work would cost at full load. Pure
 * arithmetic over the run's figures and records (docs/cost.md has the formulas and a worked
 * example).
 *
 *   gpu_hours      = gpus × duration_s / 3600
 *   total          = gpu_hours × gpu_hour_cost
 *   per_request    = total / ok requests;  per_good_request = total / good requests
 *   input cost     = total × input_share;  output cost = total × (1 − input_share)
 *   per_1k/1m in   = input cost / input tokens × 1e3 / 1e6   (and likewise for output)
 *   utilization    = busy time / duration, busy = time with ≥ 1 request in flight
 *   at full load   = every figure × utilization (idle GPU time is billed but produces nothing)
 */
import type { RequestRecord } from '../record/record.js';
import type { RunMetrics } from './run-metrics.js';
import type { TimeSpan } from './compute.js';

export const COST_SCHEMA = 'infermeter.cost/1';

/** How a GPU-second is divided between input (prefill) and output (decode) tokens. */
export interface CostSplit {
  /**
   * simulator_step_time: the simulated engine's own prefill/decode step-time share.
   * request_time: Σ TTFT / Σ E2EL over ok requests (the share of request time spent before the
   * first token), the rule for real servers, whose GPU time the client cannot see.
   * given: a share the caller stated.
   */
  method: 'simulator_step_time' | 'request_time' | 'given';
  /** In [0, 1]; output_share = 1 − input_share. */
  input_share: number;
}

export interface CostInputs {
  /** Price of one GPU for one hour, in `currency`. */
  gpu_hour_cost: number;
  gpus: number;
  currency: string;
  /** GPU model the price is for, when known (simulator hardware, --gpu-type). */
  gpu_type: string | null;
  /** Where the price came from: '--gpu-hour-cost' or a price table file and its date. */
  price_source: string;
}

export interface TokenCost {
  tokens: number;
  cost: number;
  per_1k: number | null;
  per_1m: number | null;
}

export interface CostFigures {
  schema: typeof COST_SCHEMA;
  currency: string;
  gpu_hour_cost: number;
  gpus: number;
  gpu_type: string | null;
  price_source: string;
  duration_s: number;
  gpu_hours: number;
  total_cost: number;
  ok_requests: number;
  /** ok requests meeting every per-request SLO (goodput); = ok when the run has none. */
  good_requests: number;
  /** Whether per-request SLOs defined `good_requests` (false: good = ok). */
  slos_applied: boolean;
  per_request: number | null;
  per_good_request: number | null;
  split: CostSplit;
  input: TokenCost;
  output: TokenCost;
  /** total / (input + output tokens) × 1e6. */
  per_1m_tokens: number | null;
  utilization: {
    /** Time within the window with at least one request in flight (any status), seconds. */
    busy_s: number;
    /** busy_s / duration_s (null for an empty window). */
    value: number | null;
  };
  /** The same figures if the GPUs had been busy the whole time: each × utilization. */
  at_full_load: {
    total_cost: number | null;
    per_request: number | null;
    per_good_request: number | null;
    input_per_1m: number | null;
    output_per_1m: number | null;
    per_1m_tokens: number | null;
  };
}

const div = (a: number, b: number): number | null => (b > 0 ? a / b : null);

/**
 * Cost per 1M tokens: cost × 1e6 / tokens (null without tokens). The one formula: the cost
 * block's `per_1m_tokens` and compare's resampled figure; a costed run's is read from its block.
 */
export function perMillionTokens(cost: number, tokens: number): number | null {
  return div(cost * 1e6, tokens);
}
const times = (a: number | null, u: number | null): number | null => (a === null || u === null ? null : a * u);

/** Length of the union of [sent_ms, end_ms] intervals, clipped to the window. */
export function busyMs(records: readonly RequestRecord[], window: TimeSpan | null): number {
  if (window === null) return 0;
  const spans = records
    .map((r) => [Math.max(r.sent_ms, window.start_ms), Math.min(r.end_ms, window.end_ms)] as const)
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  let total = 0;
  let curStart = -Infinity;
  let curEnd = -Infinity;
  for (const [a, b] of spans) {
    if (a > curEnd) {
      if (curEnd > curStart) total += curEnd - curStart;
      curStart = a;
      curEnd = b;
    } else if (b > curEnd) curEnd = b;
  }
  if (curEnd > curStart) total += curEnd - curStart;
  return total;
}

/** The request-time rule: Σ TTFT / Σ E2EL over ok requests with a first token (0.5 when none). */
export function requestTimeSplit(records: readonly RequestRecord[]): CostSplit {
  let ttft = 0;
  let e2el = 0;
  for (const r of records) {
    if (r.status !== 'ok' || r.first_token_ms === null) continue;
    ttft += r.first_token_ms - r.sent_ms;
    e2el += r.end_ms - r.sent_ms;
  }
  return { method: 'request_time', input_share: e2el > 0 ? Math.min(1, Math.max(0, ttft / e2el)) : 0.5 };
}

function tokenCost(tokens: number, cost: number): TokenCost {
  const per = div(cost, tokens);
  return { tokens, cost, per_1k: per === null ? null : per * 1e3, per_1m: per === null ? null : per * 1e6 };
}

/**
 * Cost figures of one run. `measure` are the measure-phase records over which `m` was computed
 * (for the busy time); `split` says how GPU time divides between input and output.
 */
export function computeCost(m: RunMetrics, measure: readonly RequestRecord[], inputs: CostInputs, split: CostSplit): CostFigures {
  const duration = m.duration_s;
  const gpuHours = (inputs.gpus * duration) / 3600;
  const total = gpuHours * inputs.gpu_hour_cost;
  const ok = m.requests.ok;
  const good = m.goodput ? m.goodput.good : ok;
  const input = tokenCost(m.tokens.input_total, total * split.input_share);
  const output = tokenCost(m.tokens.output_total, total * (1 - split.input_share));
  const allTokens = m.tokens.input_total + m.tokens.output_total;
  const per1m = perMillionTokens(total, allTokens);
  const window = m.start_ms !== null && m.end_ms !== null ? { start_ms: m.start_ms, end_ms: m.end_ms } : null;
  const busy = busyMs(measure, window) / 1000;
  const u = duration > 0 ? Math.min(1, busy / duration) : null;
  const perRequest = div(total, ok);
  const perGood = div(total, good);
  return {
    schema: COST_SCHEMA,
    currency: inputs.currency,
    gpu_hour_cost: inputs.gpu_hour_cost,
    gpus: inputs.gpus,
    gpu_type: inputs.gpu_type,
    price_source: inputs.price_source,
    duration_s: duration,
    gpu_hours: gpuHours,
    total_cost: total,
    ok_requests: ok,
    good_requests: good,
    slos_applied: m.goodput !== null,
    per_request: perRequest,
    per_good_request: perGood,
    split,
    input,
    output,
    per_1m_tokens: per1m,
    utilization: { busy_s: busy, value: u },
    at_full_load: {
      total_cost: times(total, u),
      per_request: times(perRequest, u),
      per_good_request: times(perGood, u),
      input_per_1m: times(input.per_1m, u),
      output_per_1m: times(output.per_1m, u),
      per_1m_tokens: times(per1m, u),
    },
  };
}
