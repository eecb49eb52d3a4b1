/** The console lines for the server-side view of a run (result.json `server`, docs/observe.md). */
import type { ServerObservation } from '../observe/observation.js';
import type { SeriesSummary } from '../observe/series.js';
import type { ColdStartFigures } from './result-json.js';

const pct = (x: number | null | undefined): string => (x === null || x === undefined ? '—' : `${(x * 100).toFixed(1)}%`);
const num = (x: number | null | undefined, digits = 1): string => (x === null || x === undefined ? '—' : x.toFixed(digits));
const ms = (s: SeriesSummary | undefined): string => (s?.mean === null || s?.mean === undefined ? '—' : `${(s.mean * 1000).toFixed(1)} ms`);

export function renderServerSummary(obs: ServerObservation, clientTtftMeanMs: number | null): string {
  const s = obs.series;
  const engines = [...new Set(obs.sources.flatMap((x) => x.engines))].join(', ') || 'none recognized';
  const good = obs.sources.filter((x) => x.scrapes > 0).length;
  const how = obs.mode === 'prometheus' ? 'from Prometheus' : `scraped every ${obs.interval_ms / 1000} s`;
  const lines = [`Server side (${engines}; ${good}/${obs.sources.length} endpoint${obs.sources.length === 1 ? '' : 's'} ${how})`];
  if (good === 0) {
    lines.push(`  no server series: ${obs.sources.map((x) => `${x.url}: ${x.problem ?? 'no samples'}`).join('; ')}`);
    return lines.join('\n');
  }
  const parts: string[][] = [];
  if (s.running || s.waiting) parts.push([`running mean ${num(s.running?.mean)} (peak ${num(s.running?.max, 0)})`, `waiting mean ${num(s.waiting?.mean)} (peak ${num(s.waiting?.max, 0)})`, `batch mean ${num(s.batch_size?.mean)}`]);
  if (s.kv_usage || s.prefix_hit_rate || s.preemptions_per_s)
    parts.push([`KV cache usage mean ${pct(s.kv_usage?.mean)} (peak ${pct(s.kv_usage?.max)})`, `prefix-cache hit rate ${pct(s.prefix_hit_rate?.mean)}`, `preemptions ${num(s.preemptions_per_s?.total, 0)}`]);
  if (s.prompt_tokens_per_s || s.generation_tokens_per_s) parts.push([`prompt tokens/s ${num(s.prompt_tokens_per_s?.mean)}`, `generation tokens/s ${num(s.generation_tokens_per_s?.mean)}`]);
  if (s.ttft_s || s.queue_time_s || s.prefill_time_s) {
    const client = clientTtftMeanMs === null ? '' : ` (client TTFT mean ${clientTtftMeanMs.toFixed(1)} ms)`;
    parts.push([`server TTFT mean ${ms(s.ttft_s)} = queue ${ms(s.queue_time_s)} + prefill ${ms(s.prefill_time_s)}${client}`]);
  }
  if (s.gpu_util || s.gpu_mem_used_bytes)
    parts.push([
      `GPU utilization mean ${pct(s.gpu_util?.mean)}`,
      `SM active ${pct(s.gpu_sm_active?.mean)}`,
      `memory bandwidth active ${pct(s.gpu_dram_active?.mean)}`,
      `memory peak ${s.gpu_mem_used_bytes?.max === undefined ? '—' : `${(s.gpu_mem_used_bytes.max / 2 ** 30).toFixed(1)} GiB`}`,
      ...(s.gpu_power_w ? [`power mean ${num(s.gpu_power_w.mean, 0)} W`] : []),
    ]);
  for (const p of parts) lines.push(`  ${p.join('   ')}`);
  if (obs.restarts > 0) lines.push(`  server restarts detected: ${obs.restarts}`);
  for (const x of obs.sources) if (x.problem) lines.push(`  ${x.url}: ${x.problem} (${x.failed} failed scrape${x.failed === 1 ? '' : 's'})`);
  return lines.join('\n');
}

/** One block for --cold-start: time to healthy, to the first response, and the first requests vs. the rest. */
export function renderColdStart(c: ColdStartFigures): string {
  const s = (ms: number | null) => (ms === null ? '—' : `${(ms / 1000).toFixed(2)} s`);
  const m = (ms: number | null) => (ms === null ? '—' : `${ms.toFixed(1)} ms`);
  const ratio = c.ttft_ratio === null ? '' : ` (${c.ttft_ratio.toFixed(2)}×)`;
  return [
    `Cold start: healthy after ${s(c.time_to_healthy_ms)} (${c.polls} poll${c.polls === 1 ? '' : 's'} of ${c.path}); first response after ${s(c.time_to_first_response_ms)}`,
    `  first ${c.first_n} requests: TTFT p50 ${m(c.first_ttft_p50_ms)} vs ${m(c.steady_ttft_p50_ms)} after${ratio}; E2EL p50 ${m(c.first_e2el_p50_ms)} vs ${m(c.steady_e2el_p50_ms)}`,
  ].join('\n');
}
