/**
 * The report's first screen: the verdict with every gate (run validity, each `--slo`), the six
 * figures an evaluation is read by — TTFT p50/p99, TPOT p50/p99, output tokens/s, peak KV-cache
 * and GPU memory — each against its SLO when one was set, and the bottleneck in one line when
 * the server's own series say it (data/bottleneck.ts).
 */
import type { ObjectiveResult } from '../../metrics/index.js';
import { SLO_METRICS } from '../../metrics/index.js';
import { diagnoseBottleneck } from '../data/bottleneck.js';
import type { RunResult } from '../result-json.js';
import { escapeHtml as e } from './escape.js';
import { formatInUnit } from '../units.js';

export type Verdict = 'pass' | 'fail' | 'invalid' | 'no-gates';

export interface Gate {
  name: string;
  pass: boolean | null;
  detail: string;
}

/** Every gate a CI job could fail the run on, and the verdict they give together (exit codes 0, 3, 5). */
export function gatesOf(result: RunResult): { verdict: Verdict; gates: Gate[] } {
  const gates: Gate[] = [];
  const v = result.validity;
  gates.push(
    v
      ? { name: 'Run validity', pass: v.valid, detail: [v.valid ? 'the client kept its schedule and was not saturated' : v.reasons.join('; '), ...v.warnings.map((w) => `note: ${w}`)].join('; ') }
      : { name: 'Run validity', pass: null, detail: 'not assessed (virtual time, or re-analysed records)' },
  );
  for (const s of result.slos ?? []) gates.push({ name: `SLO ${s.slo}`, pass: s.pass, detail: sloDetail(s) });
  const slos = result.slos ?? [];
  const verdict: Verdict = v && !v.valid ? 'invalid' : slos.some((s) => !s.pass) ? 'fail' : slos.length > 0 ? 'pass' : 'no-gates';
  return { verdict, gates };
}

function sloDetail(s: ObjectiveResult): string {
  const value = `value ${formatInUnit(s.value, s.unit)} (whole run)`;
  const windows = s.windows && !s.windows.whole_run ? `; ${s.windows.met} of ${s.windows.evaluated} windows met, attainment ${formatInUnit(s.attainment, 'ratio')} against ${formatInUnit(s.attainment_target, 'ratio')}` : '';
  return `${value}${windows}`;
}

interface Figure {
  label: string;
  /** One or more values with units, each kept on one line. */
  value: string[];
  /** The SLOs that bound this figure, one line each, or a note that none did. */
  slo: Array<{ text: string; pass: boolean | null }>;
}

const OP_TEXT: Record<string, string> = { '<=': '≤', '<': '<', '>=': '≥', '>': '>' };

function sloLines(result: RunResult, metric: string, statistic: string | null): Figure['slo'] {
  const out: Figure['slo'] = [];
  for (const s of result.slos ?? []) {
    if (s.metric !== metric || (statistic !== null && s.statistic !== statistic)) continue;
    out.push({ text: `SLO ${s.statistic ?? ''} ${OP_TEXT[s.op] ?? s.op} ${formatInUnit(s.threshold, s.unit)}: ${s.pass ? 'pass' : 'FAIL'}`.replace('SLO  ', 'SLO '), pass: s.pass });
  }
  // A per-request (goodput) bound on the same metric: how many requests met it is the goodput.
  const g = result.metrics.goodput;
  for (const s of g?.slos ?? []) if (s.metric === metric && statistic !== null) out.push({ text: `per request ≤ ${formatInUnit(s.threshold_ms, 'ms')} (goodput objective)`, pass: null });
  return out;
}

function figuresOf(result: RunResult): Figure[] {
  const m = result.metrics;
  const lat = (id: 'ttft_ms' | 'tpot_ms', p: 'p50' | 'p99'): Figure => ({
    label: `${SLO_METRICS[id].label} ${p}`,
    value: [formatInUnit(m.latency[id][p], 'ms')],
    slo: sloLines(result, id, p),
  });
  const s = result.server?.series;
  const kv = s?.kv_usage?.max;
  const mem = s?.gpu_mem_used_bytes?.max;
  const memory: string[] = [];
  if (kv !== undefined) memory.push(`${formatInUnit(kv, 'ratio')} KV`);
  if (mem !== undefined) memory.push(`${(mem / 2 ** 30).toFixed(1)} GiB GPU`);
  return [
    lat('ttft_ms', 'p50'),
    lat('ttft_ms', 'p99'),
    lat('tpot_ms', 'p50'),
    lat('tpot_ms', 'p99'),
    { label: 'Output tokens/s', value: [formatInUnit(m.throughput.output_tokens_per_s, 'tok/s')], slo: sloLines(result, 'output_throughput', null) },
    {
      label: 'Peak KV cache and GPU memory',
      value: memory.length ? memory : ['not observed'],
      slo: memory.length ? [] : [{ text: 'the server’s metrics were not observed', pass: null }],
    },
  ];
}

const VERDICT_TEXT: Record<Verdict, string> = {
  pass: 'PASS — the run is valid and every SLO held',
  fail: 'FAIL — an SLO did not hold',
  invalid: 'INVALID — these figures show the client’s limits, not the server’s',
  'no-gates': 'No SLO was set — the figures below are not judged',
};

const mark = (pass: boolean | null): string => (pass === null ? '<span class="gate-na">–</span>' : pass ? '<span class="gate-ok">✓</span>' : '<span class="gate-bad">✗</span>');

/** The first screen's HTML (trusted: every value is escaped here). */
export function overviewHtml(result: RunResult): string {
  const { verdict, gates } = gatesOf(result);
  const gateList = gates.map((g) => `<li>${mark(g.pass)} <strong>${e(g.name)}</strong> — ${e(g.detail)}</li>`).join('');
  const cards = figuresOf(result)
    .map((f) => {
      const state = f.slo.some((x) => x.pass === false) ? ' bad' : f.slo.some((x) => x.pass === true) ? ' ok' : '';
      const slo = f.slo.length ? f.slo.map((x) => `<div class="fig-slo">${e(x.text)}</div>`).join('') : '<div class="fig-slo">no SLO set</div>';
      return `<div class="figure${state}"><div class="fig-label">${e(f.label)}</div><div class="fig-value">${f.value.map((v) => `<span class="num">${e(v)}</span>`).join(' ')}</div>${slo}</div>`;
    })
    .join('');
  const b = result.server ? diagnoseBottleneck(result.server.series) : null;
  const bottleneck = b
    ? `<p class="bottleneck" data-bottleneck="${e(b.kind)}"><strong>Bottleneck</strong> — ${e(b.headline)}. Evidence: ${e(b.evidence.join('; '))}.</p>`
    : result.server
      ? '<p class="bottleneck note">Bottleneck: the server’s series point at no single cause (no queue, no KV pressure, neither prefill nor decode dominating).</p>'
      : '<p class="bottleneck note">Bottleneck: not assessed — the server’s metrics were not observed (a run scrapes the target’s <code>/metrics</code>; <code>--metrics-url</code> names another endpoint).</p>';
  return `<div class="verdict ${verdict === 'pass' ? 'ok' : verdict === 'no-gates' ? 'unknown' : 'bad'}" data-verdict="${verdict}"><strong>${e(VERDICT_TEXT[verdict])}</strong><ul class="gates">${gateList}</ul></div><div class="figures">${cards}</div>${bottleneck}`;
}
