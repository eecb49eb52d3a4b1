/**
 * The HTML report of a sweep directory (sweep.json, docs/sweep-schema.md): the stages as a
 * table, the load curves with the saturation point and the knee, the SLO verdict of each
 * stage. Read through the file's documented shape, so only the fields used here are typed.
 */
import type { RunMetrics } from '../../metrics/index.js';
import type { Datasets } from '../charts/chart.js';
import { SWEEP_LOAD_TITLES, sweepCharts, type SweepMarker, type SweepPoint } from '../charts/sweep-charts.js';
import { escapeHtml as e } from './escape.js';
import { renderPage, type PageSection } from './page.js';
import { htmlTable, pct } from './tables.js';

type StageLoad = { kind: 'rate'; rate: number | 'inf' } | { kind: 'concurrency'; concurrency: number };
interface Finding {
  index: number;
  load: number;
  reason: string;
}

/** The part of sweep.json (`infermeter.sweep/1`) the report reads. */
export interface SweepDoc {
  schema: string;
  infermeter_version: string;
  sweep: { id: string | null; name: string; mode: string; driver: string; started_at: string; interrupted: boolean };
  target: { model?: unknown; base_url?: unknown; endpoint?: unknown; simulated?: unknown };
  slos: string[];
  stages: Array<{ index: number; role: string; load: StageLoad; metrics: RunMetrics; slos_pass: boolean | null; stopped_early: string | null }>;
  analysis: { order: number[]; saturation: Finding | null; knee: Finding | null; degradation: Finding | null };
  search: { found: number | null; reason: string } | null;
  pass: boolean;
}

const fmt = (v: number | null | undefined, d = 2): string => (v === null || v === undefined ? '—' : v.toFixed(d));
const loadText = (l: StageLoad): string => (l.kind === 'concurrency' ? `concurrency ${l.concurrency}` : l.rate === 'inf' ? 'all at once' : `${l.rate} req/s`);
const loadValue = (l: StageLoad): number | null => (l.kind === 'concurrency' ? l.concurrency : typeof l.rate === 'number' ? l.rate : null);

export function buildSweepReport(doc: SweepDoc, spec: unknown, generator: string): Promise<string> {
  const byIndex = new Map(doc.stages.map((s) => [s.index, s]));
  const ordered = (doc.analysis?.order ?? doc.stages.map((s) => s.index)).map((i) => byIndex.get(i)).filter((s) => s !== undefined);
  // The curve's x axis is one kind of load: the kind most stages have (an auto sweep's baseline and probe are of the other).
  const rates = ordered.filter((s) => s.load.kind === 'rate').length;
  const kind = rates >= ordered.length - rates ? 'rate' : 'concurrency';
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
  if (doc.analysis?.saturation) markers.push({ load: doc.analysis.saturation.load, label: 'saturation' });
  if (doc.analysis?.knee) markers.push({ load: doc.analysis.knee.load, label: 'knee' });
  const datasets: Datasets = { sweep_points: points, sweep_markers: markers };

  const findings = (['saturation', 'knee', 'degradation'] as const)
    .map((k) => [k, doc.analysis?.[k]] as const)
    .map(([k, f]) => `<li><strong>${k}</strong>: ${f ? `${e(f.load)} — ${e(f.reason)}` : 'not found in the loads run'}</li>`)
    .join('');
  const verdict = doc.slos.length
    ? `<div class="verdict ${doc.pass ? 'ok' : 'bad'}"><strong>SLOs ${doc.pass ? 'held' : 'did not all hold'}</strong>: ${doc.slos.map((s) => e(s)).join('; ')}${doc.search ? ` — search: ${doc.search.found === null ? 'no load passed' : `highest passing load ${e(doc.search.found)}`} (${e(doc.search.reason)})` : ''}</div>`
    : '<p class="note">No SLOs were given.</p>';
  const stageRows = ordered.map((s) => [
    `#${s.index} ${s.role}`,
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
    s.slos_pass === null ? '—' : s.slos_pass ? 'pass' : `fail${s.stopped_early ? ' (stopped early)' : ''}`,
  ]);
  const sections: PageSection[] = [
    {
      id: 'summary',
      title: 'Sweep',
      html: `${verdict}<h3>Curve analysis</h3><ul>${findings}</ul><h3>Stages (by offered load)</h3>${htmlTable(['Stage', 'load', 'requests', 'req/s', 'out tok/s', 'goodput req/s', 'TTFT p50', 'TTFT p99', 'TPOT p50', 'TPOT p99', 'failed', 'SLOs'], stageRows)}`,
      charts: [],
    },
    { id: 'curves', title: 'Load curves', html: points.length ? '' : '<p class="note">No stage has a finite load of one kind to draw a curve over.</p>', charts: points.length ? sweepCharts(SWEEP_LOAD_TITLES[kind]) : [] },
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
