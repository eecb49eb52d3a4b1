/** `infermeter plan` output: the arithmetic per option, then the options ranked by monthly cost. */
import { money } from '../util/money.js';
import type { CapacityPlan } from '../analysis/plan/capacity.js';

/** One search of plan's: every probe in order and the outcome (src/sweep/search.ts runs it). */
export interface SearchRecord {
  /** Highest passing value; null when even the lowest probe failed. */
  best: number | null;
  bracket: [number | null, number | null];
  probes: Array<{ x: number; pass: boolean; detail: { failing: string[]; requests?: number } }>;
  /** True when the search limit itself passed. */
  capped: boolean;
  /** Why the search ended. */
  reason: string;
}

export interface SearchSummary {
  result: SearchRecord;
  unit: string;
}

export interface PlanOption {
  /** e.g. `h100 × TP1` or `measured (4 runs)`. */
  name: string;
  feasible: boolean;
  /** Why it cannot meet the SLOs at any size; null when feasible. */
  reason: string | null;
  gpus_per_replica: number;
  gpu_hour_cost: number | null;
  rate_per_replica_rps: number | null;
  plan: CapacityPlan | null;
  max_concurrency: number | null;
  /**
   * What kind of measurement `max_concurrency` is, in words: the simulator's closed-loop search,
   * or the passing stage of saved runs it was seen in (a closed loop's users, or an open loop's
   * peak in flight). Absent in plans written before it: read as the closed-loop search.
   */
  max_concurrency_source?: string | null;
  max_input_len: number | null;
  max_output_len: number | null;
  /** How each figure was found (lines). */
  method: string[];
  searches: Record<string, SearchSummary>;
}

export interface PlanReport {
  schema: 'infermeter.plan/1';
  traffic_rps: number;
  traffic_source: string;
  headroom: number;
  slos: string[];
  currency: string;
  options: PlanOption[];
  /** Wall-clock seconds the plan took. */
  elapsed_s: number;
}

/** The simulator's concurrency: a closed-loop search whose every probe was judged by the SLOs. */
export const CLOSED_LOOP_SEARCH = 'closed loop, SLOs met';

const fmtX = (x: number, unit: string): string => (unit === 'req/s' ? `${x >= 10 ? x.toFixed(1) : x.toFixed(2)}` : String(Math.round(x)));

/** `1 ✓, 2 ✓, 4 ✗ (p95(ttft) < 1.5s: 2.1 s) → 3.0` */
export function searchLine(s: SearchSummary): string {
  const probes = s.result.probes.map((p) => `${fmtX(p.x, s.unit)} ${p.pass ? '✓' : '✗'}`).join(', ');
  const firstFail = s.result.probes.find((p) => !p.pass);
  const why = firstFail && firstFail.detail.failing.length > 0 ? `; first failure: ${firstFail.detail.failing.join('; ')}` : '';
  const best = s.result.best === null ? 'none passed' : `${fmtX(s.result.best, s.unit)} ${s.unit}${s.result.capped ? ' (the search limit; the SLOs still held)' : ''}`;
  return `${probes} → ${best}${why}`;
}

export function ranked(options: readonly PlanOption[]): PlanOption[] {
  const key = (o: PlanOption): number => (o.feasible && o.plan ? (o.plan.monthly_cost ?? o.plan.gpus) : Infinity);
  return [...options].sort((a, b) => key(a) - key(b));
}

export function renderPlanText(r: PlanReport): string {
  const out: string[] = [];
  out.push(`== infermeter plan: ${r.traffic_rps} req/s (${r.traffic_source}), SLOs ${r.slos.join(', ')}, headroom ${(r.headroom * 100).toFixed(0)}% ==`);
  for (const o of r.options) {
    out.push('', `-- ${o.name} --`);
    if (!o.feasible) {
      out.push(`cannot meet the SLOs at any size: ${o.reason}`);
      continue;
    }
    for (const m of o.method) out.push(m);
    for (const [what, s] of Object.entries(o.searches)) out.push(`  ${what}: ${searchLine(s)}`);
    if (o.plan) out.push(...o.plan.lines);
    if (o.max_concurrency !== null) out.push(`max concurrency per replica  = ${o.max_concurrency} requests in flight (${o.max_concurrency_source ?? CLOSED_LOOP_SEARCH})`);
    if (o.max_input_len !== null) out.push(`longest input                = ${o.max_input_len} tokens${o.plan ? ` at ${o.plan.load_per_replica_rps.toFixed(2)} req/s per replica` : ''}`);
    if (o.max_output_len !== null) out.push(`longest output               = ${o.max_output_len} tokens${o.plan ? ` at ${o.plan.load_per_replica_rps.toFixed(2)} req/s per replica` : ''}`);
  }
  out.push('', 'Options ranked by monthly cost:');
  const rows = ranked(r.options).map((o, i) =>
    o.feasible && o.plan
      ? [String(i + 1), o.name, o.rate_per_replica_rps!.toFixed(2), String(o.plan.replicas), String(o.plan.gpus), o.plan.monthly_cost === null ? '—' : money(o.plan.monthly_cost, r.currency, 2), o.max_concurrency === null ? '—' : String(o.max_concurrency), o.max_input_len === null ? '—' : String(o.max_input_len), o.max_output_len === null ? '—' : String(o.max_output_len)]
      : ['-', o.name, `cannot meet the SLOs: ${o.reason}`, '', '', '', '', '', ''],
  );
  const header = ['rank', 'option', 'req/s per replica', 'replicas', 'GPUs', 'monthly cost', 'max conc.', 'max in', 'max out'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.filter((row) => row[0] !== '-' || i < 3).map((row) => (i === 2 && row[0] === '-' ? 0 : row[i]!.length))));
  const line = (cells: string[]) => (cells[0] === '-' ? `${cells[0]!.padEnd(widths[0]!)}  ${cells[1]!.padEnd(widths[1]!)}  ${cells[2]}` : cells.map((c, i) => (i <= 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
  out.push(line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line));
  out.push('', `(${r.elapsed_s.toFixed(1)} s)`);
  return out.join('\n');
}
