/**
 * The console summary printed at the end of a run or analysis: latency table with the
 * percentiles, throughput, goodput, errors, and the validity verdict.
 */
import { batchSizeText, inputUnitOf } from '../record/input-unit.js';
import type { Distribution, ObjectiveResult, RunMetrics } from '../metrics/index.js';
import { renderObjectives } from './slo-summary.js';
import { CLIENT_CHECKS, type RunValidity } from '../analysis/run-validity.js';
import { describeFailureClasses } from '../analysis/request-outcome.js';
import type { CostFigures } from '../metrics/cost.js';
import { renderCost } from './cost-summary.js';
import type { QualityFigures } from '../metrics/quality.js';
import { renderQuality } from './quality-summary.js';
import { textTable } from '../util/text-table.js';
import { THROUGHPUT_HEAD, throughputCells } from './throughput-rows.js';

const fmt = (v: number | null, digits = 2): string => (v === null ? '—' : v.toFixed(digits));
const pct = (v: number | null): string => (v === null ? '—' : `${(v * 100).toFixed(2)}%`);

const table = (header: string[], rows: string[][]): string => textTable(header, rows);

const LATENCY_ROWS: Array<[keyof RunMetrics['latency'], string]> = [
  ['ttft_ms', 'TTFT (ms)'],
  ['ttft_from_schedule_ms', 'TTFT from schedule (ms)'],
  ['tpot_ms', 'TPOT (ms)'],
  ['itl_ms', 'ITL (ms)'],
  ['e2el_ms', 'E2E latency (ms)'],
  ['schedule_lag_ms', 'Send lag (ms)'],
];

/** Rows of generated tokens over time, left out for requests that generate none (RunMetrics.batch). */
const TOKEN_TIMING_ROWS: ReadonlySet<string> = new Set(['ttft_ms', 'ttft_from_schedule_ms', 'tpot_ms', 'itl_ms']);

/** Shown below them when the run had reasoning (RunMetrics.reasoning). */
export const REASONING_ROWS: Array<[keyof NonNullable<RunMetrics['reasoning']>['latency'], string]> = [
  ['ttfat_ms', 'First answer token (ms)'],
  ['reasoning_ms', 'Reasoning (ms)'],
  ['answer_tpot_ms', 'Answer TPOT (ms)'],
];

function latencyRow(label: string, d: Distribution): string[] {
  return [label, String(d.count), fmt(d.mean), fmt(d.std), fmt(d.min), fmt(d.p50), fmt(d.p90), fmt(d.p95), fmt(d.p99), fmt(d.p99_9), fmt(d.max)];
}

export interface SummaryContext {
  title: string;
  validity: RunValidity | null;
  slos?: readonly ObjectiveResult[] | null;
  /** The command's exit code, stated on the SLO line when an SLO failed. */
  exitCode?: number;
  byTask?: Record<string, RunMetrics> | null;
  byTurn?: { first_turn: RunMetrics; later_turns: RunMetrics } | null;
  cost?: CostFigures | null;
  quality?: QualityFigures | null;
  /** The run's --max-concurrency (null: none set; absent: not known, as for analyze of records alone). */
  maxConcurrency?: number | null;
  /** --percentile-metrics: the metrics whose asked-for percentiles (--metric-percentiles) are listed (absent: all four). */
  percentileMetrics?: readonly PercentileMetric[] | null;
}

export type PercentileMetric = 'ttft' | 'tpot' | 'itl' | 'e2el';

/** vLLM's names for the metrics it prints percentiles of (benchmarks/serve.py process_one_metric). */
const PERCENTILE_METRIC_ROWS: Array<[PercentileMetric, keyof RunMetrics['latency'], string]> = [
  ['ttft', 'ttft_ms', 'TTFT'],
  ['tpot', 'tpot_ms', 'TPOT'],
  ['itl', 'itl_ms', 'ITL'],
  ['e2el', 'e2el_ms', 'E2EL'],
];

/**
 * The asked-for percentiles (Distribution.percentiles), one line each as vLLM prints them
 * (`P99.99 TTFT (ms):` padded to 40, the value to 2 decimals); null when none were asked for.
 */
export function renderAskedPercentiles(m: RunMetrics, metrics: readonly PercentileMetric[] | null | undefined): string | null {
  const chosen = new Set(metrics ?? PERCENTILE_METRIC_ROWS.map(([id]) => id));
  const lines: string[] = [];
  for (const [id, key, name] of PERCENTILE_METRIC_ROWS) {
    if (!chosen.has(id) || (m.batch && TOKEN_TIMING_ROWS.has(key))) continue;
    const asked = m.latency[key].percentiles;
    if (!asked) continue;
    // JSON keys "25", "75" come before "99.99" whatever the order written: list by value.
    const ps = Object.keys(asked).sort((a, b) => Number(a) - Number(b));
    for (const p of ps) lines.push(`${`P${p} ${name} (ms):`.padEnd(40)} ${fmt(asked[p] ?? null)}`);
  }
  return lines.length === 0 ? null : `Percentiles asked for (--metric-percentiles):\n${lines.join('\n')}`;
}

/** One row per group (task, turn): the figures people compare across groups. */
function groupTable(title: string, groups: Array<[string, RunMetrics]>): string {
  return table(
    [title, 'requests', 'ok', 'TTFT p50', 'TTFT p99', 'TPOT p50', 'TPOT p99', 'E2EL p50', 'out tok/s'],
    groups.map(([name, g]) => [
      name,
      String(g.requests.total),
      String(g.requests.ok),
      fmt(g.latency.ttft_ms.p50),
      fmt(g.latency.ttft_ms.p99),
      fmt(g.latency.tpot_ms.p50),
      fmt(g.latency.tpot_ms.p99),
      fmt(g.latency.e2el_ms.p50),
      fmt(g.throughput.output_tokens_per_s, 1),
    ]),
  );
}

/** The client-seen outages (docs/metrics.md §Availability); null when there were none. */
export function renderOutages(a: RunMetrics['availability']): string | null {
  if (!a || a.outages.length === 0) return null;
  const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const lines = [`Outages: ${a.outages.length}, down ${a.downtime_s.toFixed(2)} s, availability ${a.value === null ? '—' : `${(a.value * 100).toFixed(2)}%`} (the server unreachable or answering 5xx, seen by the client)`];
  for (const o of a.outages) {
    const classes = Object.entries(o.by_error_class).map(([k, n]) => `${k} ${n}`).join(', ');
    lines.push(`  ${secs(o.from_ms)} → ${secs(o.to_ms)}${o.recovered ? '' : ' (not recovered by the end)'}: ${o.failed} failed (${classes})`);
  }
  return lines.join('\n');
}

export function renderSummary(m: RunMetrics, ctx: SummaryContext): string {
  const out: string[] = [];
  out.push(`== ${ctx.title} ==`);
  const r = m.requests;
  out.push(`Requests: ${r.total} measured, ${r.ok} ok, ${r.failed} failed${lateNote(r, ctx.validity, ctx.maxConcurrency)}   Duration: ${m.duration_s.toFixed(2)} s`);
  const outageLines = renderOutages(m.availability);
  if (outageLines) out.push(outageLines);
  out.push('');
  // Requests that generate nothing (embeddings) have no token timings: their rows would be empty.
  const b = m.batch ?? null;
  const rows = b ? LATENCY_ROWS.filter(([key]) => !TOKEN_TIMING_ROWS.has(key)) : LATENCY_ROWS;
  out.push(
    table(
      ['Latency', 'n', 'mean', 'std', 'min', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'max'],
      [
        ...rows.map(([key, label]) => latencyRow(label, m.latency[key])),
        ...(m.reasoning ? REASONING_ROWS.map(([key, label]) => latencyRow(label, m.reasoning!.latency[key])) : []),
      ],
    ),
  );
  const asked = renderAskedPercentiles(m, ctx.percentileMetrics);
  if (asked !== null) out.push(asked);
  if (m.reasoning) {
    const z = m.reasoning;
    out.push(`Reasoning: ${z.requests} of ${r.ok} ok responses reasoned; ${z.reasoning_tokens_total} reasoning + ${z.answer_tokens_total} answer tokens`);
  }
  if (b) {
    const unit = inputUnitOf(m);
    out.push(`No TTFT, TPOT or ITL: these requests generate no tokens (one answer per request, its latency is E2E); ${b.requests} requests carried ${b.inputs_total} ${unit}, ${batchSizeText(unit)} mean ${fmt(b.batch_size_mean, 1)}, max ${b.batch_size_max}`);
  }
  if (m.media) out.push(mediaLine(m.media));
  out.push('');
  out.push(`Throughput over the measured window, ${fmt(m.duration_s, 1)} s (first send → last end):`);
  out.push(
    textTable([...THROUGHPUT_HEAD], throughputCells(m), { leftColumns: 2 }),
  );
  const offered = offeredLine(m);
  if (offered !== null) out.push(offered);
  if (m.goodput) {
    const g = m.goodput;
    const slos = g.slos.map((s) => `${s.metric.replace(/_ms$/, '')} ≤ ${s.threshold_ms} ms`).join(', ');
    out.push('');
    out.push(`Goodput (${slos}): ${fmt(g.request_per_s, 3)} req/s, ${fmt(g.output_tokens_per_s, 1)} output tok/s; ${g.good}/${r.total} requests met every SLO (${pct(g.attained)})`);
  }
  if (ctx.byTask && Object.keys(ctx.byTask).length > 0) {
    out.push('');
    out.push(groupTable('Task', Object.entries(ctx.byTask)));
  }
  if (ctx.byTurn) {
    out.push('');
    out.push(groupTable('Turn', [['first turn', ctx.byTurn.first_turn], ['later turns', ctx.byTurn.later_turns]]));
  }
  if (r.failed > 0) {
    out.push('');
    out.push(failureLine(r));
  }
  if (ctx.cost) {
    out.push('');
    out.push(renderCost(ctx.cost));
  }
  if (ctx.quality) {
    out.push('');
    out.push(renderQuality(ctx.quality, ctx.cost?.currency ?? null));
  }
  if (ctx.slos && ctx.slos.length > 0) {
    out.push('');
    out.push(renderObjectives(ctx.slos, ctx.exitCode));
  }
  if (ctx.validity) {
    out.push('');
    out.push(...verdictLines(ctx.validity));
  }
  return out.join('\n');
}

/** A measured window stretched this much past the last send is called out (docs/metrics.md §Throughput). */
export const STRETCH_SHOWN = 1.25;

/** The offered-window throughputs, when stragglers stretched the measured window; null otherwise. */
function offeredLine(m: RunMetrics): string | null {
  const o = m.throughput.offered_window;
  if (!o || o.stretch < STRETCH_SHOWN) return null;
  return (
    `Over the offered window, ${fmt(o.duration_s, 1)} s (first send → last send): ${fmt(o.request_per_s, 3)} req/s${m.batch ? '' : `, ${fmt(o.output_tokens_per_s, 1)} output tok/s`} — ` +
    `${o.ended_after} request${o.ended_after === 1 ? '' : 's'} ending after the last send stretched the measured window ${fmt(o.stretch, 2)}×`
  );
}

/** The failure rate first, then its parts: errors (by class), timeouts, cancellations. */
export function failureLine(r: RunMetrics['requests']): string {
  const errors = describeFailureClasses(r, (c) => c !== 'timeout' && c !== 'cancelled');
  return (
    `Failure rate ${pct(r.failure_rate)} (${r.failed} of ${r.total}): ` +
    `errors ${pct(r.error_rate)}${errors ? ` (${errors})` : ''}, timeouts ${pct(r.timeout_rate)}, cancelled ${pct(r.cancel_rate)}`
  );
}

/**
 * Late requests and where they waited: at the --max-concurrency gate (the server's back-pressure,
 * by design) or behind the client's own dispatcher (the client could not keep up).
 */
function lateNote(r: RunMetrics['requests'], v: RunValidity | null, maxConcurrency: number | null | undefined): string {
  if (r.late === 0) return '';
  const head = `, ${r.late} sent late (> ${r.late_threshold_ms} ms after schedule`;
  const behind = v?.checks.dispatch_late ?? null;
  if (behind === null) return `${head})`;
  const byClient = Math.min(r.late, behind);
  const atGate = r.late - byClient;
  // Only a run with a cap has a gate to wait at: without one (or not knowing), no wait is put on it.
  const gate = typeof maxConcurrency === 'number' ? 'waited for a --max-concurrency slot' : null;
  const noCap = maxConcurrency === null ? '; no --max-concurrency was set' : '';
  if (byClient === 0) return gate ? `${head}: all ${gate}, not for the client)` : `${head}: none behind the client's dispatcher${noCap})`;
  if (atGate === 0) return `${head}: the client's dispatcher was late)`;
  return gate ? `${head}: ${atGate} ${gate}, ${byClient} for the client's dispatcher)` : `${head}: ${byClient} behind the client's dispatcher${noCap})`;
}

function verdictLines(v: RunValidity): string[] {
  const out: string[] = [];
  if (v.valid) {
    out.push(
      v.checks.client_observed
        ? 'Run validity: VALID (the client kept its schedule and was not saturated)'
        : 'Run validity: VALID (failures within --max-failure-rate; the client itself was not observed here)',
    );
  } else if (v.failed_checks.every((c) => CLIENT_CHECKS.has(c))) {
    out.push('Run validity: INVALID — these figures show the client’s limits, not the server’s:');
  } else out.push('Run validity: INVALID —');
  for (const reason of v.reasons) out.push(`  - ${reason}`);
  for (const w of v.warnings) out.push(`  note: ${w}`);
  return out;
}

/** One line on the images and audio the requests carried (RunMetrics.media). */
export function mediaLine(x: NonNullable<RunMetrics['media']>): string {
  const kib = (b: number): string => (b >= 1024 * 1024 ? `${fmt(b / 1024 / 1024, 2)} MiB` : `${fmt(b / 1024, 1)} KiB`);
  const parts: string[] = [];
  if (x.images_total > 0) parts.push(`${x.images_total} images (${fmt(x.images_per_request, 2)} per request, ${kib(x.image_bytes_total / x.images_total)} each)`);
  if (x.audio_clips_total > 0) parts.push(`${x.audio_clips_total} audio clips (${kib(x.audio_bytes_total / x.audio_clips_total)} each)`);
  const served = x.prompt_tokens_mean === null ? 'the server reported no prompt length' : `served prompt ${fmt(x.prompt_tokens_mean, 1)} tokens mean (the server's count, media included)`;
  return `Media: ${x.requests} requests carried ${parts.join(' and ')}; ${kib(x.bytes_per_request)} per request; ${served}`;
}
