/**
 * The HTML report of a sweep directory (sweep.json, docs/sweep-schema.md): the stages as a
 * table, the load curves with the saturation point and the knee, the SLO verdict of each
 * stage. Read through the file's documented shape, so only the fields used here are typed.
 */
import { curveKind } from '../../analysis/load-curve.js';
import type { ObjectiveResult, RunMetrics } from '../../metrics/index.js';
import type { ServerObservation } from '../../observe/observation.js';
import type { RequestRecord } from '../../record/record.js';
import { SLO_RULES, type Datasets } from '../charts/chart.js';
import { overlaidCdfCharts, overlaidCdfDatasets } from '../charts/overlay-charts.js';
import { diagnoseBottleneck } from '../data/bottleneck.js';
import { runDistributions } from '../data/distributions.js';
import { sloRules } from '../data/slo-rules.js';
import { batchSweepCharts, SWEEP_LOAD_TITLES, sweepCharts, type SweepMarker, type SweepPoint } from '../charts/sweep-charts.js';
import { escapeHtml as e } from './escape.js';
import { renderPage, type PageSection } from './page.js';
import { htmlTable, pct } from './tables.js';
import { BATCH_SWEEP_CURVE_NOTE, type BatchSweepFindings } from '../../sweep/batch-sizes.js';
import { inputUnitOf } from '../../record/input-unit.js';
import { prefixCacheLines, type PrefixCacheCheck, type StagePrefixCache } from '../../sweep/prefix-cache.js';

type StageLoad = { kind: 'rate'; rate: number | 'inf' } | { kind: 'concurrency'; concurrency: number };
interface Finding {
  index: number;
  load: number | null;
  reason: string;
}

/** The part of sweep.json (`infermeter.sweep/1`, `/2` and `/3`) the report reads. */
export interface SweepDoc {
  schema: string;
  infermeter_version: string;
  sweep: { id: string | null; name: string; mode: string; dimension?: string; driver: string; started_at: string; interrupted: boolean };
  target: { model?: unknown; base_url?: unknown; endpoint?: unknown; simulated?: unknown };
  slos: string[];
  stages: Array<{ index: number; role: string; load: StageLoad; metrics: RunMetrics; slos?: ObjectiveResult[] | null; slos_pass: boolean | null; stopped_early: string | null; server?: ServerObservation | null; prefix_cache?: StagePrefixCache | null; batch_size?: number }>;
  analysis: { order: number[]; saturation: Finding | null; knee: Finding | null; degradation: Finding | null; batch?: BatchSweepFindings };
  search: { found: number | null; reason: string; bracketed?: number | null; confirmations?: Array<{ load: number; stage: number; pass: boolean; why: string }> } | null;
  pass: boolean;
  prefix_cache?: PrefixCacheCheck | null;
}

const fmt = (v: number | null | undefined, d = 2): string => (v === null || v === undefined ? '—' : v.toFixed(d));
const loadText = (l: StageLoad): string => (l.kind === 'concurrency' ? `concurrency ${l.concurrency}` : l.rate === 'inf' ? 'all at once' : `${l.rate} req/s`);
/** Stage numbers as the CLI prints them: 1-based. */
export const stageName = (index: number): string => `stage ${index + 1}`;
const loadValue = (l: StageLoad): number | null => (l.kind === 'concurrency' ? l.concurrency : typeof l.rate === 'number' ? l.rate : null);

/** What each finding means for the user, after its load and the analysis's reason. */
const FINDING_TEXT = {
  saturation: (load: string) => `Saturation at ${load}: throughput stopped rising — offering more load than this only adds latency.`,
  knee: (load: string) => `Knee at ${load}: latency rises fastest from here — run at or below it to keep headroom.`,
  degradation: (load: string) => `Degradation at ${load}: the service got worse (errors or a collapse of throughput) — stay well below it.`,
} as const;

function findingsHtml(doc: SweepDoc, loadUnit: (v: number) => string): string {
  return (['saturation', 'knee', 'degradation'] as const)
    .map((k) => {
      const f = doc.analysis?.[k];
      if (!f) return `<li><strong>${k}</strong>: not found in the loads run${k === 'degradation' ? ' (no stage degraded)' : ''}.</li>`;
      const at = f.load === null ? stageName(f.index) : `${loadUnit(f.load)} (${stageName(f.index)})`;
      return `<li>${e(FINDING_TEXT[k](at))} <span class="note">Found by: ${e(f.reason)}.</span></li>`;
    })
    .join('');
}

const n1 = (x: number | null | undefined, d = 1): string => (x === null || x === undefined ? '—' : x.toFixed(d));
const msOf = (x: number | null | undefined): string => (x === null || x === undefined ? '—' : `${(x * 1000).toFixed(1)} ms`);
const pctOf = (x: number | null | undefined): string => (x === null || x === undefined ? '—' : `${(x * 100).toFixed(1)} %`);

/** The console's per-stage server table, with the bottleneck line of each stage (data/bottleneck.ts). */
function serverTable(stages: SweepDoc['stages'], loadText: (l: StageLoad) => string): string {
  const observed = stages.filter((st) => st.server);
  if (observed.length === 0) return '<p class="note">The server’s metrics were not observed in this sweep (virtual time, or <code>--no-metrics</code>).</p>';
  const rows = observed.map((st) => {
    const s = st.server!.series;
    const b = diagnoseBottleneck(s);
    return [
      stageName(st.index),
      loadText(st.load),
      n1(s.running?.mean),
      n1(s.waiting?.mean),
      pctOf(s.kv_usage?.max),
      n1(s.preemptions_per_s?.total, 0),
      msOf(s.queue_time_s?.mean),
      msOf(s.prefill_time_s?.mean),
      pctOf(s.gpu_util?.mean),
      b ? b.headline.split(':')[0]! : '—',
    ];
  });
  return htmlTable(['Stage', 'load', 'running (mean)', 'waiting (mean)', 'KV usage (peak)', 'preemptions', 'queue time (mean)', 'prefill (mean)', 'GPU util (mean)', 'bottleneck'], rows);
}

export function buildSweepReport(doc: SweepDoc, spec: unknown, generator: string, records: readonly RequestRecord[] = []): Promise<string> {
  if (doc.sweep.dimension === 'batch_size') return buildBatchSweepReport(doc, spec, generator);
  const byIndex = new Map(doc.stages.map((s) => [s.index, s]));
  const ordered = (doc.analysis?.order ?? doc.stages.map((s) => s.index)).map((i) => byIndex.get(i)).filter((s) => s !== undefined);
  const kind = curveKind(ordered.map((s) => s.load.kind));
  const points: SweepPoint[] = [];
  for (const s of ordered) {
    const x = s.load.kind === kind ? loadValue(s.load) : null;
    if (x === null) continue;
    const m = s.metrics;
    points.push({
      load: x,
      stage: s.index,
      ttft_p50: m.latency.ttft_ms.p50,
      ttft_p99: m.latency.ttft_ms.p99,
      tpot_p50: m.latency.tpot_ms.p50,
      tpot_p99: m.latency.tpot_ms.p99,
      e2el_p50: m.latency.e2el_ms.p50,
      e2el_p99: m.latency.e2el_ms.p99,
      request_per_s: m.throughput.request_per_s,
      output_tokens_per_s: m.throughput.output_tokens_per_s,
      goodput_request_per_s: m.goodput?.request_per_s ?? null,
    });
  }
  const markers: SweepMarker[] = [];
  for (const k of ['saturation', 'knee', 'degradation'] as const) {
    const f = doc.analysis?.[k];
    if (f && f.load !== null) markers.push({ load: f.load, label: k });
  }
  const withSlos = doc.stages.find((st) => st.slos && st.slos.length > 0);
  const goodput = doc.stages.find((st) => st.metrics.goodput)?.metrics.goodput?.slos ?? [];
  const datasets: Datasets = { sweep_points: points, sweep_markers: markers, [SLO_RULES]: sloRules(withSlos?.slos, goodput) };
  const loadUnit = (v: number): string => (kind === 'concurrency' ? `concurrency ${v}` : `${v} req/s`);

  // Per stage, the distributions of its measure-phase records (records.jsonl holds every stage's, by `stage`).
  const groups = ordered
    .map((st) => ({ name: `${stageName(st.index)} (${loadText(st.load)})`, dists: runDistributions(records.filter((r) => r.stage === st.index)) }))
    .filter((g) => g.dists.some((d) => d.count > 0));
  Object.assign(datasets, overlaidCdfDatasets(groups));
  const distCharts = overlaidCdfCharts(groups, 'stage', (m) => `Each stage’s ${m === 'itl_ms' ? 'gaps between chunks' : 'requests'} (measure phase, ok): the curves move right as the load rises; where one crosses a red SLO line, that stage breaks the SLO.`);

  const verdict = doc.slos.length
    ? `<div class="verdict ${doc.pass ? 'ok' : 'bad'}"><strong>SLOs ${doc.pass ? 'held' : 'did not all hold'}</strong>: ${doc.slos.map((s) => e(s)).join('; ')}${doc.search ? ` — search: ${doc.search.found === null ? 'no load passed' : `highest passing load ${e(doc.search.found)}${doc.search.confirmations?.some((c) => c.pass) ? ', confirmed by a re-run with fresh prompts' : ''}`} (${e(doc.search.reason)})` : ''}</div>`
    : '<p class="note">No SLOs were given.</p>';
  const hasPrefix = doc.stages.some((st) => st.prefix_cache);
  const flagged = new Set((doc.prefix_cache?.flagged ?? []).map((f) => f.stage));
  const prefixCell = (st: SweepDoc['stages'][number]): string[] =>
    hasPrefix ? [st.prefix_cache?.hit_rate === null || st.prefix_cache?.hit_rate === undefined ? '—' : `${pctOf(st.prefix_cache.hit_rate)}${flagged.has(st.index) ? ' (differs)' : ''}`] : [];
  const prefixNotes = prefixCacheLines(doc.prefix_cache, (i) => loadText(byIndex.get(i)!.load));
  const prefixHtml = hasPrefix
    ? `<p class="note">prefix hit: prompt tokens the ${doc.sweep.driver === 'virtual' ? 'simulated engine' : 'server'} served from its prefix cache over the stage. Every stage sends fresh prompts unless the workload shares prefixes; a stage more than ${n1((doc.prefix_cache?.margin ?? 0.1) * 100)} points from the other stages' median is marked.</p>${prefixNotes.length ? `<ul>${prefixNotes.map((l) => `<li>${e(l)}</li>`).join('')}</ul>` : ''}`
    : '';
  const stageRows = ordered.map((s) => [
    `${stageName(s.index)} (${s.role})`,
    loadText(s.load),
    String(s.metrics.requests.total),
    fmt(s.metrics.throughput.request_per_s, 3),
    fmt(s.metrics.throughput.output_tokens_per_s, 1),
    fmt(s.metrics.goodput?.request_per_s, 3),
    fmt(s.metrics.latency.ttft_ms.p50),
    fmt(s.metrics.latency.ttft_ms.p99),
    fmt(s.metrics.latency.tpot_ms.p50),
    fmt(s.metrics.latency.tpot_ms.p99),
    pct(s.metrics.requests.failure_rate),
    ...prefixCell(s),
    s.slos_pass === null ? '—' : s.slos_pass ? 'pass' : `fail${s.stopped_early ? ' (stopped early)' : ''}`,
  ]);
  const sections: PageSection[] = [
    {
      id: 'summary',
      title: 'Sweep',
      html: `${verdict}<h3>What the curve says</h3><ul>${findingsHtml(doc, loadUnit)}</ul><h3>Stages (by offered load)</h3>${htmlTable(['Stage', 'load', 'requests', 'req/s', 'out tok/s', 'goodput req/s', 'TTFT p50 (ms)', 'TTFT p99 (ms)', 'TPOT p50 (ms)', 'TPOT p99 (ms)', 'failed', ...(hasPrefix ? ['prefix hit'] : []), 'SLOs'], stageRows)}${prefixHtml}<h3>The server per stage</h3>${serverTable(ordered, loadText)}`,
      charts: [],
    },
    { id: 'curves', title: 'Load curves', html: points.length ? '' : '<p class="note">No stage has a finite load of one kind to draw a curve over.</p>', charts: points.length ? sweepCharts(SWEEP_LOAD_TITLES[kind]) : [] },
    {
      id: 'stage-distributions',
      title: 'Distributions per stage',
      html: distCharts.length ? '' : '<p class="note">The sweep directory holds no records.jsonl, so the stages’ distributions cannot be drawn.</p>',
      charts: distCharts,
    },
    { id: 'spec', title: 'Run spec', html: `<details open><summary>spec.json (secrets removed)</summary><pre>${e(JSON.stringify(spec, null, 2))}</pre></details>`, charts: [] },
  ];
  const t = doc.target;
  const facts: Array<[string, string]> = [
    ['Sweep', doc.sweep.id ?? doc.sweep.name],
    ['Mode', doc.sweep.mode],
    ['Model', String(t.model ?? '—')],
    ['Target', t.simulated ? `built-in simulator (${doc.sweep.driver === 'virtual' ? 'virtual time' : 'HTTP'})` : `${String(t.base_url ?? '')}${String(t.endpoint ?? '')}`],
    ['Started', doc.sweep.started_at],
    ['Stages', String(doc.stages.length)],
  ];
  return renderPage({ title: `infermeter sweep: ${String(t.model ?? '')}`, facts, sections, datasets, generator });
}

/**
 * A batch-size sweep's report (`sweep.dimension: "batch_size"`): the stage table by batch size —
 * requests/s, inputs/s (documents/s), input tokens/s, E2E latency p50/p90/p99, errors, SLOs — its
 * two answers, and inputs/s and E2E latency against the batch size. No saturation point or knee.
 */
function buildBatchSweepReport(doc: SweepDoc, spec: unknown, generator: string): Promise<string> {
  const byIndex = new Map(doc.stages.map((s) => [s.index, s]));
  const ordered = doc.analysis.order.map((i) => byIndex.get(i)).filter((s) => s !== undefined);
  const unit = ordered[0] ? inputUnitOf(ordered[0].metrics) : 'inputs';
  const points: SweepPoint[] = ordered
    .filter((s) => s.batch_size !== undefined)
    .map((s) => {
      const m = s.metrics;
      return {
        load: s.batch_size!,
        stage: s.index,
        ttft_p50: null,
        ttft_p99: null,
        tpot_p50: null,
        tpot_p99: null,
        e2el_p50: m.latency.e2el_ms.p50,
        e2el_p99: m.latency.e2el_ms.p99,
        request_per_s: m.throughput.request_per_s,
        output_tokens_per_s: null,
        goodput_request_per_s: null,
        inputs_per_s: m.batch?.inputs_per_s ?? null,
      };
    });
  const withSlos = doc.stages.find((st) => st.slos && st.slos.length > 0);
  const datasets: Datasets = { sweep_points: points, sweep_markers: [], [SLO_RULES]: sloRules(withSlos?.slos, []) };
  const f = doc.analysis.batch;
  const best = f?.best_inputs_per_s ?? null;
  const largest = f?.largest_meeting_slos ?? null;
  const answers = [
    best ? `Most ${unit}/s: batch size ${best.batch_size} (${stageName(best.index)}), ${fmt(best.inputs_per_s, 1)} ${unit}/s.` : `Most ${unit}/s: no stage completed a request.`,
    ...(doc.slos.length ? [largest ? `Largest batch size meeting every SLO: ${largest.batch_size} (${stageName(largest.index)}).` : 'Largest batch size meeting every SLO: none — no stage held them.'] : []),
  ];
  const verdict = doc.slos.length
    ? `<div class="verdict ${doc.pass ? 'ok' : 'bad'}"><strong>${largest ? `batch size ${largest.batch_size} held the SLOs` : 'no batch size held the SLOs'}</strong>: ${doc.slos.map((s) => e(s)).join('; ')}</div>`
    : '<p class="note">No SLOs were given.</p>';
  const load = ordered[0] ? loadText(ordered[0].load) : '—';
  const rows = ordered.map((s) => {
    const m = s.metrics;
    const l = m.latency.e2el_ms;
    return [stageName(s.index), String(s.batch_size ?? '—'), String(m.requests.total), fmt(m.throughput.request_per_s, 3), fmt(m.batch?.inputs_per_s, 1), fmt(m.batch?.input_tokens_per_s, 1), fmt(l.p50), fmt(l.p90), fmt(l.p99), pct(m.requests.failure_rate), s.slos_pass === null ? '—' : s.slos_pass ? 'pass' : 'fail'];
  });
  const table = htmlTable(['Stage', 'batch size', 'requests', 'req/s', `${unit}/s`, 'input tok/s', 'E2EL p50 (ms)', 'E2EL p90 (ms)', 'E2EL p99 (ms)', 'failed', 'SLOs'], rows);
  const sections: PageSection[] = [
    {
      id: 'summary',
      title: 'Batch-size sweep',
      html: `${verdict}<ul>${answers.map((a) => `<li>${e(a)}</li>`).join('')}</ul><p class="note">Batch size = ${e(unit)} per request; every stage at one load: ${e(load)}. Saturation, knee, degradation: ${e(f?.curve ?? BATCH_SWEEP_CURVE_NOTE)}.</p><h3>Stages (by batch size)</h3>${table}`,
      charts: [],
    },
    { id: 'curves', title: 'Batch-size curves', html: points.length ? '' : '<p class="note">No stage to draw.</p>', charts: points.length ? batchSweepCharts(unit) : [] },
    { id: 'spec', title: 'Run spec', html: `<details open><summary>spec.json (secrets removed)</summary><pre>${e(JSON.stringify(spec, null, 2))}</pre></details>`, charts: [] },
  ];
  const t = doc.target;
  const facts: Array<[string, string]> = [
    ['Sweep', doc.sweep.id ?? doc.sweep.name],
    ['Varies', 'batch size'],
    ['Model', String(t.model ?? '—')],
    ['Target', t.simulated ? `built-in simulator (${doc.sweep.driver === 'virtual' ? 'virtual time' : 'HTTP'})` : `${String(t.base_url ?? '')}${String(t.endpoint ?? '')}`],
    ['Started', doc.sweep.started_at],
    ['Stages', String(doc.stages.length)],
  ];
  return renderPage({ title: `infermeter batch-size sweep: ${String(t.model ?? '')}`, facts, sections, datasets, generator });
}
