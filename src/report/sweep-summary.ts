/**
 * The console view of a sweep: progress lines per stage, the curve as a table (load → TTFT and
 * TPOT percentiles, output tokens/s, goodput, error rate, SLOs) with the saturation point, knee
 * and degradation marked, and the search's answer.
 */
import { formatLoad } from '../sweep/stages.js';
import type { StageResult, SweepResult } from '../sweep/sweep-result.js';
import { PREFIX_HIT_MARGIN, prefixCacheLines } from '../sweep/prefix-cache.js';
import { BATCH_SWEEP_CURVE_NOTE } from '../sweep/batch-sizes.js';
import { inputUnitOf as inputNoun } from '../record/input-unit.js';

type Stage = SweepResult['stages'][number];

const fmt = (v: number | null, digits = 1): string => (v === null ? '—' : v.toFixed(digits));
const pct = (v: number | null): string => (v === null ? '—' : `${Number((v * 100).toFixed(2))}%`);

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i <= 1 || i === cells.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** `stage 3/10 (auto, 4.2 req/s)`; a batch-size sweep's `stage 2/4 (batch 8, c=16)`. */
export function stageLabel(index: number, total: number | null, role: string, load: Stage['load'] | StageResult['load'], batchSize?: number): string {
  return `stage ${index + 1}${total !== null ? `/${total}` : ''} (${batchSize !== undefined ? `batch ${batchSize}` : role}, ${formatLoad(load)})`;
}

/** One line when a stage ends. */
export function stageDoneLine(s: StageResult, total: number | null): string {
  const m = s.metrics;
  const slo = s.slos_pass === null ? '' : s.slos_pass ? ', SLOs held' : ', SLOs FAILED';
  if (s.batch_size !== undefined) {
    const b = m.batch;
    const noun = inputNoun(m);
    return (
      `${stageLabel(s.index, total, s.role, s.load, s.batch_size)} done in ${s.wall_s.toFixed(1)} s: ${m.requests.total} requests, ` +
      `${fmt(b?.inputs_per_s ?? null)} ${noun}/s, E2EL p99 ${fmt(m.latency.e2el_ms.p99)} ms${slo}` +
      (s.stopped_early ? ` — stopped early: ${s.stopped_early}` : '')
    );
  }
  return (
    `${stageLabel(s.index, total, s.role, s.load)} done in ${s.wall_s.toFixed(1)} s: ${m.requests.total} requests, ` +
    `${fmt(m.throughput.output_tokens_per_s)} out tok/s, TTFT p99 ${fmt(m.latency.ttft_ms.p99)} ms, TPOT p99 ${fmt(m.latency.tpot_ms.p99)} ms${slo}` +
    (s.stopped_early ? ` — stopped early: ${s.stopped_early}` : '')
  );
}

export function renderSweep(r: SweepResult, title: string): string {
  if (r.sweep.dimension === 'batch_size') return renderBatchSweep(r, title);
  const out = [`== ${title} ==`];
  const byIndex = new Map(r.stages.map((s) => [s.index, s]));
  const a = r.analysis;
  const flagged = new Set((r.prefix_cache?.flagged ?? []).map((f) => f.stage));
  const marks = (i: number): string => {
    const c = r.search?.confirmations?.find((x) => x.stage === i);
    return [
      a.saturation?.index === i ? 'saturation' : null,
      a.knee?.index === i ? 'knee' : null,
      a.degradation?.index === i ? 'degraded' : null,
      r.search?.found !== undefined && r.search.found !== null && r.search.probes.some((p) => p.stage === i && p.load === r.search!.found) ? 'found' : null,
      c ? (c.pass ? 'confirmed' : 'confirmation FAILED') : null,
      flagged.has(i) ? 'prefix cache differs' : null,
    ]
      .filter((x) => x !== null)
      .join(', ');
  };
  const hasGoodput = r.stages.some((s) => s.metrics.goodput !== null);
  const hasSlos = r.stages.some((s) => s.slos_pass !== null);
  const hasQuality = r.stages.some((s) => s.quality);
  const hasPrefix = r.stages.some((s) => s.prefix_cache);
  const header = ['#', 'load', 'TTFT p50', 'p95', 'p99', 'TPOT p50', 'p95', 'p99', 'out tok/s', ...(hasGoodput ? ['goodput'] : []), ...(hasQuality ? ['accuracy'] : []), 'errors', ...(hasPrefix ? ['prefix hit'] : []), ...(hasSlos ? ['SLOs'] : []), ''];
  const rows = a.order.map((i) => {
    const s = byIndex.get(i)!;
    const m = s.metrics;
    const t = m.latency.ttft_ms;
    const p = m.latency.tpot_ms;
    const load = s.role === 'baseline' ? `c=1 (${fmt(m.throughput.request_per_s, 2)} req/s)` : formatLoad(s.load);
    return [
      String(i + 1),
      load,
      fmt(t.p50),
      fmt(t.p95),
      fmt(t.p99),
      fmt(p.p50, 2),
      fmt(p.p95, 2),
      fmt(p.p99, 2),
      fmt(m.throughput.output_tokens_per_s),
      ...(hasGoodput ? [m.goodput ? `${fmt(m.goodput.request_per_s, 2)} req/s` : '—'] : []),
      ...(hasQuality ? [s.quality?.accuracy.value === null || s.quality?.accuracy.value === undefined ? '—' : pct(s.quality.accuracy.value)] : []),
      pct(m.requests.error_rate),
      ...(hasPrefix ? [s.prefix_cache?.hit_rate === null || s.prefix_cache?.hit_rate === undefined ? '—' : `${(s.prefix_cache.hit_rate * 100).toFixed(1)}%${flagged.has(i) ? '!' : ''}`] : []),
      ...(hasSlos ? [s.slos_pass === null ? '—' : s.stopped_early ? 'FAIL*' : s.slos_pass ? 'pass' : 'FAIL'] : []),
      marks(i) ? `← ${marks(i)}` : '',
    ];
  });
  out.push('', 'Latencies in ms (TTFT, TPOT); rows in ascending load.', table(header, rows));
  if (r.stages.some((s) => s.stopped_early)) out.push('FAIL*: stopped early, its SLOs could no longer be met.');
  if (hasPrefix) out.push(prefixNote(r));
  out.push(...prefixCacheLines(r.prefix_cache, (i) => loadOf(byIndex.get(i)!)));
  const server = serverTable(a.order.map((i) => byIndex.get(i)!));
  if (server) out.push('', 'Server side per stage (mean over the stage; peak in parentheses):', server);
  out.push('');
  const finding = (name: string, f: { index: number; reason: string } | null, none: string) =>
    out.push(f ? `${name}: stage ${f.index + 1} (${loadOf(byIndex.get(f.index)!)}) — ${f.reason}` : `${name}: ${none}`);
  finding('Saturation', a.saturation, `not reached: throughput still rose by more than ${pct(a.params.throughputTolerance)} at the highest load, or latency did not grow`);
  finding('Knee', a.knee, 'none: p99 E2EL did not bend upward');
  finding('Degradation', a.degradation, `none: no stage had an error rate above ${pct(a.params.errorRateLimit)}${hasSlos ? ' or a failed SLO' : ''}`);
  if (r.auto) {
    out.push(`Auto: baseline ${fmt(r.auto.baseline_request_per_s, 3)} req/s (concurrency 1), max-throughput probe ${fmt(r.auto.probe_request_per_s, 3)} req/s; rates ${r.auto.rates.join(', ')}`);
    if (r.slos.length > 0) out.push('  SLOs are judged on the curve stages only, not on the max-throughput probe (all requests at once, to find the ceiling).');
  }
  if (r.search) {
    const s = r.search;
    const unit = s.kind === 'rate' ? ' req/s' : ' concurrent';
    out.push('');
    out.push(s.found === null ? `Search: no ${s.kind} met the SLOs (${s.reason})` : `Search: highest ${s.kind} meeting every SLO: ${s.found}${unit}`);
    out.push(`  bracket [${s.bracket[0] ?? '—'}, ${s.bracket[1] ?? '—'}]${unit}; ${s.reason}`);
    for (const p of s.probes) out.push(`  ${p.pass ? 'pass' : 'FAIL'}  ${String(p.load).padStart(8)}${unit}  (stage ${p.stage + 1})  ${p.why}`);
    for (const c of s.confirmations ?? []) out.push(`  ${c.pass ? 'pass' : 'FAIL'}  ${String(c.load).padStart(8)}${unit}  (stage ${c.stage + 1}, confirmation with fresh prompts)  ${c.why}`);
    if (s.bracketed !== undefined && s.bracketed !== null && s.found !== s.bracketed) out.push(`  The bracketing found ${s.bracketed}${unit}, which did not hold when run again: ${s.found === null ? 'no load is confirmed' : `stepped down to ${s.found}${unit}`}.`);
  }
  return out.join('\n');
}

/** Where the prefix-hit column comes from, and what it guards against. */
function prefixNote(r: SweepResult): string {
  const simulated = r.stages.some((s) => s.prefix_cache?.source === 'simulator');
  const from = simulated ? "the simulated engine's prefix cache" : "the server's prefix-cache counters (/metrics)";
  return `prefix hit: prompt tokens served from ${from} over the stage; ! marks a stage more than ${Number(((r.prefix_cache?.margin ?? PREFIX_HIT_MARGIN) * 100).toFixed(1))} points from the other stages' median.`;
}

/** The server's queue, batch and KV cache per stage, when any stage was observed (HTTP sweeps). */
function serverTable(stages: readonly Stage[]): string | null {
  const seen = stages.filter((s) => s.server && Object.keys(s.server.series).length > 0);
  if (seen.length === 0) return null;
  const peak = (mean: number | null | undefined, max: number | undefined, digits: number, scale = 1) =>
    mean === null || mean === undefined ? '—' : `${(mean * scale).toFixed(digits)}${max === undefined ? '' : ` (${(max * scale).toFixed(digits)})`}`;
  const rows = stages.map((s) => {
    const x = s.server?.series ?? {};
    return [
      String(s.index + 1),
      loadOf(s),
      peak(x.running?.mean, x.running?.max, 1),
      peak(x.waiting?.mean, x.waiting?.max, 1),
      peak(x.kv_usage?.mean, x.kv_usage?.max, 1, 100),
      x.preemptions_per_s?.total === undefined ? '—' : fmt(x.preemptions_per_s.total, 0),
      peak(x.gpu_util?.mean, undefined, 1, 100),
    ];
  });
  return table(['#', 'load', 'running', 'waiting', 'KV cache %', 'preemptions', 'GPU util %'], rows);
}

function loadOf(s: Stage): string {
  return s.role === 'baseline' ? `concurrency 1, ${fmt(s.metrics.throughput.request_per_s, 2)} req/s` : formatLoad(s.load);
}

/**
 * A batch-size sweep (`--batch-sizes`): one row per batch size at the sweep's one load — requests/s,
 * inputs/s (documents/s for rerank and score), input tokens/s, E2E latency p50/p90/p99, errors —
 * then the batch size with the most inputs/s and the largest whose stage held every SLO. No
 * saturation point or knee: the curve analysis reads load on the x axis.
 */
function renderBatchSweep(r: SweepResult, title: string): string {
  const out = [`== ${title} ==`];
  const byIndex = new Map(r.stages.map((s) => [s.index, s]));
  const order = r.analysis.order.filter((i) => byIndex.has(i));
  const first = byIndex.get(order[0] ?? -1);
  const noun = first ? inputNoun(first.metrics) : 'inputs';
  const hasSlos = r.stages.some((s) => s.slos_pass !== null);
  const f = r.analysis.batch ?? null;
  const marks = (i: number): string =>
    [f?.best_inputs_per_s?.index === i ? `most ${noun}/s` : null, f?.largest_meeting_slos?.index === i ? 'largest meeting the SLOs' : null].filter((x) => x !== null).join(', ');
  const header = ['#', 'batch', 'req/s', `${noun}/s`, 'input tok/s', 'E2EL p50', 'p90', 'p99', 'errors', ...(hasSlos ? ['SLOs'] : []), ''];
  const rows = order.map((i) => {
    const s = byIndex.get(i)!;
    const m = s.metrics;
    const e = m.latency.e2el_ms;
    return [
      String(i + 1),
      String(s.batch_size ?? '—'),
      fmt(m.throughput.request_per_s, 2),
      fmt(m.batch?.inputs_per_s ?? null),
      fmt(m.batch?.input_tokens_per_s ?? null),
      fmt(e.p50),
      fmt(e.p90),
      fmt(e.p99),
      pct(m.requests.error_rate),
      ...(hasSlos ? [s.slos_pass === null ? '—' : s.slos_pass ? 'pass' : 'FAIL'] : []),
      marks(i) ? `← ${marks(i)}` : '',
    ];
  });
  const load = first ? formatLoad(first.load) : '—';
  const cap = (r.load as { max_concurrency?: unknown }).max_concurrency;
  out.push('', `Batch size = ${noun} per request; every stage at one load: ${load}${typeof cap === 'number' && first?.load.kind === 'rate' ? `, at most ${cap} in flight (--max-concurrency)` : ''}. Latencies in ms (E2E: the whole answer).`, table(header, rows));
  out.push('');
  const best = f?.best_inputs_per_s ?? null;
  out.push(best ? `Most ${noun}/s: batch size ${best.batch_size} (stage ${best.index + 1}), ${fmt(best.inputs_per_s)} ${noun}/s` : `Most ${noun}/s: no stage completed a request`);
  if (hasSlos || (f?.slos_given ?? false)) {
    const l = f?.largest_meeting_slos ?? null;
    out.push(l ? `Largest batch size meeting every SLO (${r.slos.join('; ')}): ${l.batch_size} (stage ${l.index + 1})` : `Largest batch size meeting every SLO (${r.slos.join('; ')}): none — no stage held them`);
  }
  out.push(`Saturation, knee, degradation: ${f?.curve ?? BATCH_SWEEP_CURVE_NOTE}.`);
  return out.join('\n');
}
