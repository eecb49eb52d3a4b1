/** The cost block of the console summary (figures from src/metrics/cost.ts). */
import type { CostFigures } from '../metrics/cost.js';
import { money } from '../util/money.js';


export function renderCost(c: CostFigures): string {
  const m = (v: number | null) => money(v, c.currency);
  const u = c.utilization.value;
  const f = c.at_full_load;
  const out = [
    `Cost (${c.gpus} × ${c.gpu_type ?? 'GPU'} at ${m(c.gpu_hour_cost)}/GPU-hour, ${c.price_source}):`,
    `  ${c.gpu_hours.toFixed(4)} GPU-hours = ${m(c.total_cost)};  per request ${m(c.per_request)};  per successful request ${m(c.per_good_request)}` +
      ` (${c.good_requests} ${c.slos_applied ? 'ok within SLOs' : 'ok, no SLOs given'})`,
    `  per 1M input tokens ${m(c.input.per_1m)} (per 1K ${m(c.input.per_1k)});  per 1M output tokens ${m(c.output.per_1m)} (per 1K ${m(c.output.per_1k)});  per 1M tokens ${m(c.per_1m_tokens)}`,
    `  GPU time split: ${(c.split.input_share * 100).toFixed(1)}% input / ${((1 - c.split.input_share) * 100).toFixed(1)}% output (${c.split.method === 'simulator_step_time' ? "the simulator's prefill/decode step time" : c.split.method === 'request_time' ? 'request time before / after the first token' : 'given'})`,
    `  utilization ${u === null ? '—' : `${(u * 100).toFixed(1)}%`} (time with a request in flight); at full load: per request ${m(f.per_request)}, per successful request ${m(f.per_good_request)}, per 1M output tokens ${m(f.output_per_1m)}`,
  ];
  return out.join('\n');
}
