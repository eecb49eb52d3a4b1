/**
 * The order of a sweep's stages — a list, an auto sweep (baseline, probe, rates between) or a
 * search — and the reading of the curve they make. How one stage runs (over HTTP or in virtual
 * time) is the caller's `RunStage`; this file only decides which load comes next.
 */
import { CURVE_PARAMS, findDegradation, findKnee, findSaturation, type CurveParams, type CurvePoint } from '../analysis/load-curve.js';
import { LoadSearch, type SearchOptions, type SearchOutcome } from './search.js';
import { batchFindings, batchOrder, type SweepDimension } from './batch-sizes.js';
import { autoRates, formatLoad, loadValue, type StageLoad, type StageRole } from './stages.js';
import type { StageResult, SweepAnalysis, SweepAuto, SweepSearch } from './sweep-result.js';

/** How a sweep chooses its stages: a list of loads, an auto sweep of n stages, or a search. */
export type StageSequence =
  | { mode: 'list'; loads: StageLoad[] }
  | { mode: 'auto'; n: number }
  | { mode: 'search'; kind: 'rate' | 'concurrency'; options: SearchOptions }
  /** --batch-sizes: one stage per batch size, every one at the same load (null: the spec's own, which the sweep session fills in). */
  | { mode: 'batch'; sizes: number[]; load: StageLoad | null };

/** Runs one stage; `batchSize` is given in a batch-size sweep (the stage's inputs per request), else the spec's own. */
export type RunStage = (load: StageLoad, role: StageRole, index: number, batchSize?: number) => Promise<StageResult>;

export interface SweepHooks {
  /** True once the sweep should stop (Ctrl-C): no further stage starts. */
  stopped?: () => boolean;
  /** Before a stage starts: its index and, when known, how many stages there are. */
  onStageStart?: (index: number, load: StageLoad, role: StageRole, total: number | null, batchSize?: number) => void;
  onStageEnd?: (stage: StageResult) => void;
}

export interface SweepRun {
  stages: StageResult[];
  auto: SweepAuto | null;
  search: SweepSearch | null;
  interrupted: boolean;
}

export async function runStages(plan: StageSequence, runStage: RunStage, hooks: SweepHooks = {}): Promise<SweepRun> {
  const stages: StageResult[] = [];
  let interrupted = false;
  const run = async (load: StageLoad, role: StageRole, total: number | null, batchSize?: number): Promise<StageResult | null> => {
    if (hooks.stopped?.()) {
      interrupted = true;
      return null;
    }
    const index = stages.length;
    hooks.onStageStart?.(index, load, role, total, batchSize);
    const s = batchSize === undefined ? await runStage(load, role, index) : await runStage(load, role, index, batchSize);
    stages.push(s);
    hooks.onStageEnd?.(s);
    if (hooks.stopped?.()) interrupted = true;
    return s;
  };

  if (plan.mode === 'list') {
    for (const load of plan.loads) if ((await run(load, 'list', plan.loads.length)) === null || interrupted) break;
    return { stages, auto: null, search: null, interrupted };
  }

  if (plan.mode === 'batch') {
    const load = plan.load;
    if (load === null) throw new Error('runStages: a batch-size sweep needs its fixed load');
    for (const size of plan.sizes) if ((await run(load, 'list', plan.sizes.length, size)) === null || interrupted) break;
    return { stages, auto: null, search: null, interrupted };
  }

  if (plan.mode === 'auto') {
    const total = plan.n + 2;
    const base = await run({ kind: 'concurrency', concurrency: 1 }, 'baseline', total);
    const probe = base && !interrupted ? await run({ kind: 'rate', rate: Infinity }, 'probe', total) : null;
    const b = base?.metrics.throughput.request_per_s ?? null;
    const p = probe?.metrics.throughput.request_per_s ?? null;
    const rates = b !== null && b > 0 && p !== null ? autoRates(b, p, plan.n) : [];
    for (const rate of rates) if (interrupted || (await run({ kind: 'rate', rate }, 'auto', total)) === null) break;
    return { stages, auto: { baseline_request_per_s: b, probe_request_per_s: p, rates }, search: null, interrupted };
  }

  const search = new LoadSearch(plan.options);
  const probes: SweepSearch['probes'] = [];
  const stageOf = (load: number): StageLoad => (plan.kind === 'rate' ? { kind: 'rate', rate: load } : { kind: 'concurrency', concurrency: load });
  for (let load = search.next(); load !== null; load = search.next()) {
    const s = await run(stageOf(load), 'search', null);
    if (s === null) break;
    const pass = s.slos_pass === true;
    search.record(load, pass);
    probes.push({ load, stage: s.index, pass, why: probeWhy(s) });
    if (interrupted) break;
  }
  const base = { kind: plan.kind, precision: plan.options.precision, probes };
  if (interrupted) return { stages, auto: null, search: { ...base, found: null, bracket: [null, null], reason: 'interrupted', bracketed: null, confirmations: [] }, interrupted };
  const outcome = search.outcome;
  const confirmed = await confirm(outcome, probes, (load) => run(stageOf(load), 'confirm', null), () => interrupted);
  return { stages, auto: null, search: { ...base, ...outcome, ...confirmed }, interrupted };
}

/** Confirmation runs a search may make before it gives up stepping down. */
export const MAX_CONFIRMATIONS = 3;

/**
 * --search's confirmation: the bracketing's answer is run once more, as a stage of its own (so
 * with fresh prompts), and stands only if its SLOs hold again. One that fails steps down to the
 * next lower load that passed as a probe, which is confirmed in turn — at most MAX_CONFIRMATIONS
 * runs. A probe can pass on luck or on what the cache held; the confirmed answer held twice.
 */
async function confirm(
  outcome: SearchOutcome,
  probes: SweepSearch['probes'],
  runAt: (load: number) => Promise<StageResult | null>,
  interrupted: () => boolean,
): Promise<Pick<SweepSearch, 'found' | 'reason' | 'bracketed' | 'confirmations'>> {
  const confirmations: SweepSearch['confirmations'] = [];
  const bracketed = outcome.found;
  const notes: string[] = [];
  for (let next = bracketed; next !== null; ) {
    const load: number = next;
    const s = await runAt(load);
    if (s === null || interrupted()) {
      if (s !== null) confirmations.push({ load, stage: s.index, pass: s.slos_pass === true, why: probeWhy(s) });
      return { found: null, bracketed, confirmations, reason: 'interrupted while confirming' };
    }
    const pass = s.slos_pass === true;
    confirmations.push({ load, stage: s.index, pass, why: probeWhy(s) });
    if (pass) {
      const how = notes.length === 0 ? 'confirmed' : `${notes.join('; ')}; ${load} confirmed`;
      return { found: load, bracketed, confirmations, reason: `${outcome.reason}; ${how} by a re-run with fresh prompts (stage ${s.index + 1})` };
    }
    const lower = probes.filter((p) => p.pass && p.load < load).reduce<number | null>((m, p) => (m === null || p.load > m ? p.load : m), null);
    notes.push(`${load} failed its confirmation run (stage ${s.index + 1}, ${probeWhy(s)})`);
    if (lower === null) return { found: null, bracketed, confirmations, reason: `${outcome.reason}; ${notes.join('; ')}, and no lower load passed as a probe: no load is confirmed` };
    if (confirmations.length >= MAX_CONFIRMATIONS) {
      return { found: null, bracketed, confirmations, reason: `${outcome.reason}; ${notes.join('; ')}; stopped after ${MAX_CONFIRMATIONS} confirmation runs without one holding (the next lower passing probe was ${lower}): no load is confirmed` };
    }
    notes.push(`stepped down to ${lower}`);
    next = lower;
  }
  return { found: null, bracketed, confirmations, reason: outcome.reason };
}

/** Why a probe passed or failed, in one line: each SLO's value, or the early stop. */
function probeWhy(s: StageResult): string {
  if (s.stopped_early) return `stopped early: ${s.stopped_early}`;
  if (!s.slos) return 'no SLOs';
  const failed = s.slos.filter((r) => !r.pass);
  const list = (failed.length > 0 ? failed : s.slos).map((r) => `${r.slo}: ${r.value === null ? 'no value' : Number(r.value.toPrecision(4))}`);
  return `${failed.length > 0 ? 'failed' : 'held'}: ${list.join('; ')}`;
}

/**
 * The curve's x for a stage: its rate or concurrency. A synchronous baseline inside a rate sweep
 * (--auto) sits at the request rate it achieved, which is the rate it offered.
 */
export function curveLoad(s: StageResult, rateSweep: boolean): number {
  if (rateSweep && s.load.kind === 'concurrency') return s.metrics.throughput.request_per_s ?? 0;
  return loadValue(s.load);
}

/**
 * The curve in ascending load, and its saturation point, knee and degradation point. Stages
 * stopped early hold partial figures: they count for degradation but not for the curve's shape.
 */
export function analyzeStages(stages: readonly StageResult[], params: CurveParams = CURVE_PARAMS): SweepAnalysis {
  const rateSweep = stages.some((s) => s.load.kind === 'rate');
  const sorted = [...stages].sort((a, b) => curveLoad(a, rateSweep) - curveLoad(b, rateSweep) || a.index - b.index);
  const pointOf = (s: StageResult): CurvePoint => ({
    load: curveLoad(s, rateSweep),
    throughput: s.metrics.throughput.output_tokens_per_s,
    latency_p50: s.metrics.latency.e2el_ms.p50,
    latency_p99: s.metrics.latency.e2el_ms.p99,
    error_rate: s.metrics.requests.error_rate,
    slos_pass: s.slos_pass,
  });
  const complete = sorted.filter((s) => s.stopped_early === null);
  const at = <T extends { index: number }>(f: T | null, over: readonly StageResult[]): T | null => (f === null ? null : { ...f, index: over[f.index]!.index });
  return {
    order: sorted.map((s) => s.index),
    saturation: at(findSaturation(complete.map(pointOf), params), complete),
    knee: at(findKnee(complete.map(pointOf), params), complete),
    degradation: at(findDegradation(sorted.map(pointOf), params), sorted),
    params,
  };
}

/**
 * The reading of a sweep's stages by what it varied: a load sweep's curve (analyzeStages), or a
 * batch-size sweep's answers (batch-sizes.ts), whose saturation, knee and degradation stay null —
 * the curve analysis assumes load on the x axis.
 */
export function analyzeSweepStages(stages: readonly StageResult[], dimension: SweepDimension, slosGiven: boolean, params: CurveParams = CURVE_PARAMS): SweepAnalysis {
  if (dimension === 'load') return analyzeStages(stages, params);
  return { order: batchOrder(stages), saturation: null, knee: null, degradation: null, params, batch: batchFindings(stages, slosGiven) };
}

/** What a plan varies. */
export function planDimension(plan: StageSequence): SweepDimension {
  return plan.mode === 'batch' ? 'batch_size' : 'load';
}

export { formatLoad };
