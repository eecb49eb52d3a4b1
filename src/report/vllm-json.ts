/**
 * RunMetrics → the JSON object `vllm bench serve --save-result` writes (vllm/benchmarks/serve.py,
 * without `--save-detailed`), so scripts that read vLLM result files keep working.
 *
 * Key order and names follow vLLM: setup (date … num_prompts), metadata, traffic
 * (request_rate, burstiness, max_concurrency), totals and throughputs, then for each
 * metric `mean_<m>_ms`, `median_<m>_ms`, `std_<m>_ms`, `p<P>_<m>_ms` with P written as vLLM
 * does (`p99`, `p99.9`, `p99.99`: metrics/stats.ts percentileWord). A percentile outside
 * p50…p99.9 is read from the Distribution's `percentiles` (computeMetrics' `percentiles` option).
 *
 * vLLM conventions kept on purpose: a statistic of no values is 0 (numpy of `x or 0`), not
 * null; `request_goodput` is null when no SLO was given; `completed` counts ok requests.
 * A throughput over a zero-length window (null in RunMetrics) is written as 0.
 */

import type { RunMetrics } from '../metrics/run-metrics.js';
import { percentileWord, REPORTED_PERCENTILES, type Distribution } from '../metrics/stats.js';

/** Metrics vLLM can report percentiles for (`--percentile-metrics`). */
export type VllmPercentileMetric = 'ttft' | 'tpot' | 'itl' | 'e2el';

export interface VllmJsonContext {
  /** vLLM writes local time as `YYYYMMDD-HHMMSS`; see `vllmDate`. */
  date: string;
  /** vLLM's `--backend` (e.g. `openai`, `openai-chat`); also written as `endpoint_type`. */
  backend: string;
  /** vLLM's `--label`; null when not given. */
  label?: string | null;
  model_id: string;
  /**
   * The tokenizer that counted the prompts (--tokenizer), or null when none did (the
   * tokenizer-free estimate, server usage). vLLM always tokenizes, so it writes --tokenizer or
   * else the model id; writing the model id here would claim a tokenizer that was never used.
   */
  tokenizer_id: string | null;
  num_prompts: number;
  request_rate: number | 'inf';
  burstiness: number;
  max_concurrency: number | null;
  /** Default: all four (vLLM's default is ttft,tpot,itl). */
  percentile_metrics?: readonly VllmPercentileMetric[];
  /**
   * Default: 50, 90, 95, 99, 99.9 (vLLM's default is 99). Any 0 < p < 100; one outside those
   * five must be in the Distributions' `percentiles` (computeMetrics with `percentiles`).
   */
  metric_percentiles?: readonly number[];
  /** vLLM's `--metadata KEY=VALUE`: extra string keys after the setup keys. */
  metadata?: Readonly<Record<string, string>>;
}

export type VllmJson = Record<string, string | number | null>;

const LATENCY_OF: Record<VllmPercentileMetric, keyof RunMetrics['latency']> = {
  ttft: 'ttft_ms',
  tpot: 'tpot_ms',
  itl: 'itl_ms',
  e2el: 'e2el_ms',
};

export function toVllmJson(m: RunMetrics, ctx: VllmJsonContext): VllmJson {
  const out: VllmJson = {
    date: ctx.date,
    endpoint_type: ctx.backend,
    backend: ctx.backend,
    label: ctx.label ?? null,
    model_id: ctx.model_id,
    tokenizer_id: ctx.tokenizer_id,
    num_prompts: ctx.num_prompts,
  };
  for (const [k, v] of Object.entries(ctx.metadata ?? {})) out[k] = v;
  Object.assign(out, {
    request_rate: ctx.request_rate,
    burstiness: ctx.burstiness,
    max_concurrency: ctx.max_concurrency,
    duration: m.duration_s,
    completed: m.requests.ok,
    failed: m.requests.failed,
    total_input_tokens: m.tokens.input_total,
    total_output_tokens: m.tokens.output_total,
    request_throughput: m.throughput.request_per_s ?? 0,
    request_goodput: m.goodput === null ? null : (m.goodput.request_per_s ?? 0),
    output_throughput: m.throughput.output_tokens_per_s ?? 0,
    total_token_throughput: m.throughput.total_tokens_per_s ?? 0,
    max_output_tokens_per_s: m.throughput.peak_output_tokens_per_s,
    max_concurrent_requests: m.throughput.peak_concurrency,
    rtfx: 0,
  });
  const percentiles = ctx.metric_percentiles ?? [50, 90, 95, 99, 99.9];
  for (const name of ctx.percentile_metrics ?? ['ttft', 'tpot', 'itl', 'e2el']) {
    addStats(out, name, m.latency[LATENCY_OF[name]], percentiles);
  }
  // vLLM adds these under --max-concurrency: time waiting for the concurrency gate
  // (our schedule lag) and, in open loop, E2EL including it (our E2EL from schedule).
  if (ctx.max_concurrency !== null) {
    addStats(out, 'client_queue_time', m.latency.schedule_lag_ms, percentiles);
    if (ctx.request_rate !== 'inf') {
      addStats(out, 'e2el_including_client_queue', m.latency.e2el_from_schedule_ms, percentiles);
    }
  }
  return out;
}

function addStats(out: VllmJson, name: string, d: Distribution, percentiles: readonly number[]): void {
  out[`mean_${name}_ms`] = d.mean ?? 0;
  out[`median_${name}_ms`] = d.p50 ?? 0;
  out[`std_${name}_ms`] = d.std ?? 0;
  // vLLM: p_word = str(int(p)) if int(p) == p else str(p) → "99", "99.9", "99.99"
  for (const p of percentiles) out[`p${percentileWord(p)}_${name}_ms`] = valueAt(d, p, name) ?? 0;
}

/** Percentile p of d: asked-for ones from `percentiles`, else the fixed fields. */
function valueAt(d: Distribution, p: number, name: string): number | null {
  const word = percentileWord(p);
  if (d.percentiles && word in d.percentiles) return d.percentiles[word]!;
  const fixed = REPORTED_PERCENTILES.find(([q]) => q === p);
  if (fixed) return d[fixed[1]];
  throw new Error(`vLLM JSON: p${word} of ${name} was not computed (computeMetrics' percentiles option)`);
}

/** vLLM's result date: local time as `YYYYMMDD-HHMMSS` (`datetime.now().strftime("%Y%m%d-%H%M%S")`). */
export function vllmDate(d: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${d.getFullYear()}${two(d.getMonth() + 1)}${two(d.getDate())}-` +
    `${two(d.getHours())}${two(d.getMinutes())}${two(d.getSeconds())}`
  );
}
