/**
 * The metrics `trend` follows: a column of `runs`, and which way is better. On their own, so
 * the CLI's --help lists them without loading the history's database.
 */
export const TREND_METRICS = {
  ttft_p50_ms: 'lower',
  ttft_p99_ms: 'lower',
  tpot_p50_ms: 'lower',
  tpot_p99_ms: 'lower',
  itl_p50_ms: 'lower',
  itl_p99_ms: 'lower',
  e2el_p50_ms: 'lower',
  e2el_p99_ms: 'lower',
  failure_rate: 'lower',
  request_throughput: 'higher',
  output_throughput: 'higher',
  goodput_request_per_s: 'higher',
  goodput_attained: 'higher',
  accuracy: 'higher',
  hallucination_rate: 'lower',
  successful_per_s: 'higher',
  cost_per_success: 'lower',
} as const;
