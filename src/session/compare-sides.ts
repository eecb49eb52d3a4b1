/**
 * The sides of `compare`: each input (a run directory, its result.json, a sweep directory, a vLLM
 * result file) read into the CompareSide the judge takes (analysis/compare/compare.ts), and the
 * pairs to judge: each of B, C, … against the baseline A, or for sweeps each shared stage load.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { UserError } from '../errors/user-error.js';
import { checkSlos, computeMetrics, measureRecords, measuredWindow, runTotals } from '../metrics/index.js';
import { readJsonFile, readRunBundle, readSpec } from '../store/run-bundle.js';
import { READABLE_RESULT_SCHEMAS } from '../store/result-schema.js';
import type { RunResult } from '../report/result-json.js';
import { buildSample, figuresOfSample } from '../analysis/compare/bootstrap.js';
import { loadSettings, workloadSettings } from '../analysis/comparable-spec.js';
import type { CompareSide } from '../analysis/compare/compare.js';
import type { GroupSide } from '../analysis/compare/group-compare.js';
import { figuresOfRun, figuresOfVllm } from '../analysis/compare/key-figures.js';
import { qualitySample } from '../analysis/compare/quality-delta.js';
import type { RequestRecord } from '../record/record.js';
import type { RunBundle } from '../store/run-bundle.js';
import type { Slo } from '../metrics/index.js';
import type { CostFigures } from '../metrics/cost.js';
import { readSweep } from './saved-sweep.js';
import { isSweepDir } from '../store/run-bundle.js';
import { environmentOf, type RunEnvironment } from '../analysis/environment.js';

/** Every side read, and the pairs to judge (baseline first in each). */
export interface CompareInputs {
  sides: CompareSide[];
  pairs: Array<[CompareSide, CompareSide]>;
  /** Grouped compare (compare-groups.ts): the two groups judged over runs, instead of `pairs`. */
  groups?: { a: GroupSide; b: GroupSide };
  /** Each run directory read, by the path given: read once, its records shared with `compare --html` (compare-outputs.ts). */
  bundles?: ReadonlyMap<string, RunBundle<Partial<RunResult>>>;
}

interface SideContext {
  target: Record<string, unknown> | null;
  /** result.json's load section (settings and what the run produced). */
  load: Record<string, unknown> | null;
  /** spec.json's load section (what the user set), when the directory has one. */
  specLoad: Record<string, unknown> | null;
  workload: Record<string, unknown> | null;
  slos: Slo[];
  /** The saved validity verdict. */
  validity: { valid?: unknown; reasons?: unknown } | null;
  /** The run's cost block (result.json), when it was costed. */
  cost: Pick<CostFigures, 'gpu_hour_cost' | 'gpus' | 'per_1m_tokens'> | null;
  /** The run's (or its sweep's) environment fingerprint; null for results written without one. */
  environment: RunEnvironment | null;
}

/** A side from its records (a run's, or one sweep stage's) and the context they ran in. */
function sideFromRecords(label: string, records: RequestRecord[], ctx: SideContext): CompareSide {
  checkSlos(ctx.slos);
  const measure = measureRecords(records);
  const window = measuredWindow(measure);
  const costPerS = ctx.cost ? (ctx.cost.gpu_hour_cost * ctx.cost.gpus) / 3600 : null;
  // The point figure is the cost block's, computed from the same records when the run finished.
  const costPer1m = ctx.cost?.per_1m_tokens ?? null;
  const ok = measure.filter((r) => r.status === 'ok');
  const sample = buildSample(measure, window, ctx.slos.length > 0 ? ctx.slos : null, costPerS);
  // The point figures from the sample (its values are the metrics' when no attempt was
  // superseded by a retry): the run's full metrics would read every value once more.
  const figures = measure.some((r) => r.retried === true)
    ? figuresOfRun(computeMetrics(records, { slos: ctx.slos }), costPer1m)
    : figuresOfSample(sample, runTotals(measure, window, ctx.slos, undefined, undefined, false), costPer1m);
  return {
    label,
    kind: 'run',
    shape: {
      target: ctx.target,
      load: ctx.load ? loadSettings(ctx.load, ctx.specLoad) : null,
      workload: workloadSettings(ctx.workload),
      outcome: { requests: measure.length, seed: ctx.load?.seed ?? null, prompt_salt: ctx.workload?.prompt_salt ?? null },
      input_lengths: ok.map((r) => r.prompt_tokens ?? r.client_prompt_tokens ?? 0),
      output_lengths: ok.map((r) => r.output_tokens),
    },
    figures,
    sample,
    quality: qualitySample(records),
    invalid: invalidReason(ctx.validity),
    // Request i got the workload's i-th prompt: the same workload and seed mean the same prompts.
    prompts: ctx.workload && ctx.load ? JSON.stringify({ workload: ctx.workload, seed: ctx.load.seed ?? null }) : null,
    environment: ctx.environment,
  };
}

function invalidReason(v: SideContext['validity']): string | null {
  if (!v || v.valid !== false) return null;
  const reasons = Array.isArray(v.reasons) ? v.reasons.filter((r): r is string => typeof r === 'string') : [];
  return reasons[0] ?? 'its validity verdict says invalid';
}

/** spec.json's load section (what the user set), or null when the spec has none. */
function specLoad(spec: Record<string, unknown> | null): Record<string, unknown> | null {
  const load = spec?.load;
  return load && typeof load === 'object' ? (load as Record<string, unknown>) : null;
}

/** A side from a run read into one object (store/run-bundle.ts), or one held in memory. */
export function runSide(run: RunBundle<Partial<RunResult>>): CompareSide {
  const { result } = run;
  const records = [...run.records].sort((a, b) => a.id - b.id);
  return sideFromRecords(run.dir, records, {
    target: (result.target as unknown as Record<string, unknown>) ?? null,
    load: result.load ?? null,
    specLoad: specLoad(run.spec),
    workload: result.workload ?? null,
    slos: result.metrics?.goodput?.slos ?? [],
    validity: result.validity ?? null,
    cost: result.cost ?? null,
    environment: environmentOf(result),
  });
}

/** One side per stage of a sweep directory, keyed by the stage's load (`8 req/s`, `c=16`). */
function sweepSides(dir: string, warn: (line: string) => void): Map<string, CompareSide> {
  const sweep = readSweep(dir, 'compare', warn);
  const out = new Map<string, CompareSide>();
  for (const st of sweep.stages) {
    const stage = sweep.result.stages.find((x) => x.index === st.index);
    out.set(
      st.label,
      sideFromRecords(`${dir} [stage ${st.index}: ${st.label}]`, st.records, {
        target: sweep.result.target,
        load: { ...sweep.result.load, stage: st.label },
        specLoad: specLoad(readSpec(dir)),
        workload: sweep.result.workload,
        slos: stage?.metrics?.goodput?.slos ?? [],
        validity: stage?.validity ?? null,
        cost: null,
        environment: environmentOf(sweep.result),
      }),
    );
  }
  return out;
}

function vllmSide(path: string, j: Record<string, unknown>): CompareSide {
  const lens = (k: string): number[] | null => (Array.isArray(j[k]) && (j[k] as unknown[]).every((x) => typeof x === 'number') ? (j[k] as number[]) : null);
  const rate = j.request_rate;
  return {
    label: path,
    kind: 'vllm',
    shape: {
      target: { model: j.model_id, endpoint: j.endpoint_type ?? j.backend },
      load: {
        request_rate: rate === 'inf' || rate === Infinity ? 'inf' : rate,
        burstiness: j.burstiness,
        max_concurrency: j.max_concurrency ?? null,
        num_prompts: j.num_prompts,
      },
      workload: null,
      input_lengths: lens('input_lens'),
      output_lengths: lens('output_lens'),
    },
    figures: figuresOfVllm(j),
    sample: null,
  };
}

/** One input read into a side: a run directory (or its result.json) or a vLLM result file. `read` receives the run directory's bundle. */
export function loadSide(path: string, warn: (line: string) => void, read: (bundle: RunBundle<Partial<RunResult>>) => void = () => {}): CompareSide {
  if (!existsSync(path)) throw new UserError(`${path}: no such run directory or file`);
  const fromDir = (dir: string): CompareSide => {
    const bundle = readRunBundle<Partial<RunResult>>(dir, { records: 'required', warn });
    read(bundle);
    return runSide(bundle);
  };
  if (statSync(path).isDirectory()) return fromDir(path);
  const j = readJsonFile(path);
  if (j === null || typeof j !== 'object' || Array.isArray(j)) throw new UserError(`${path}: expected a JSON object`);
  const o = j as Record<string, unknown>;
  if (typeof o.schema === 'string' && READABLE_RESULT_SCHEMAS.includes(o.schema) && basename(path) === 'result.json') return fromDir(dirname(path));
  if (typeof o.schema === 'string') throw new UserError(`${path}: schema ${o.schema} is not one compare reads (a run directory, or a vLLM result file)`);
  if (!('request_throughput' in o) || !('completed' in o)) throw new UserError(`${path}: neither a run directory nor a vLLM result file (no request_throughput / completed keys)`);
  return vllmSide(path, o);
}

/**
 * Reads every input and pairs them: B, C, … each against A; sweep directories (all or none)
 * stage by stage, a stage paired with the baseline's stage of the same load.
 * @throws UserError for fewer than two inputs, the same run twice, a sweep among single runs, unreadable input.
 */
export function readCompareInputs(paths: readonly string[], warn: (line: string) => void): CompareInputs {
  if (paths.length < 2) throw new UserError('compare: give at least two runs: a baseline A and one or more B …');
  const real = paths.map((p) => (existsSync(p) ? realpathSync(p).replace(/\/result\.json$/, '') : p));
  for (let i = 1; i < paths.length; i++) {
    const j = real.indexOf(real[i]!);
    if (j < i) throw new UserError(`compare: ${paths[i]} and ${paths[j]} are the same run; compare two different runs`);
  }
  const sweeps = paths.map((p) => isSweepDir(p));
  if (sweeps.some(Boolean) && !sweeps.every(Boolean)) throw new UserError('compare: a sweep directory compares with other sweep directories (stage by stage), not with single runs');
  if (!sweeps[0]) {
    const bundles = new Map<string, RunBundle<Partial<RunResult>>>();
    const sides = paths.map((p) => loadSide(p, warn, (b) => bundles.set(p, b)));
    return { sides, pairs: sides.slice(1).map((b) => [sides[0]!, b]), bundles };
  }
  const all = paths.map((p) => sweepSides(p, warn));
  const base = all[0]!;
  return {
    sides: all.flatMap((m) => [...m.values()]),
    pairs: all.slice(1).flatMap((b) => {
      const common = [...base.keys()].filter((k) => b.has(k));
      if (common.length === 0) throw new UserError('compare: the sweeps share no stage load (stages are paired by their rate or concurrency)');
      return common.map((k): [CompareSide, CompareSide] => [base.get(k)!, b.get(k)!]);
    }),
  };
}
