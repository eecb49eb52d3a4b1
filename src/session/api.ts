/**
 * The programmatic API (docs/api.md): the same sessions the CLI runs, taking a run spec in the
 * config file's shape and returning the documented result objects (result.json's and sweep.json's
 * shapes). Nothing is printed; progress comes through callbacks and cancellation through an
 * AbortSignal. Bad input throws a UserError (`.message` is the CLI's one line).
 */
import { validateSpec } from '../config/load-spec.js';
import { UserError } from '../errors/user-error.js';
import type { RunResult } from '../report/result-json.js';
import type { ProgressSnapshot } from '../runner/progress.js';
import type { StageSequence } from '../sweep/run-sweep.js';
import { parseBatchSizeList } from '../sweep/batch-sizes.js';
import type { SweepResult } from '../sweep/sweep-result.js';
import { analyzeRun } from './analyze.js';
import type { SessionContext } from './context.js';
import { runSession } from './run.js';
import { checkRunSpec, RunSpecSchema, type RunSpec, type RunSpecInput } from './run-spec.js';
import { simulateRun } from './simulate.js';
import { sweepSession } from './sweep.js';
import { runRepeated as repeatSession } from './repeat.js';
import type { RepeatsFile } from '../report/repeats-json.js';
import { planCapacity, planFlags, type PlanInput } from './plan/capacity-plan.js';
import type { PlanReport } from '../report/plan-report.js';
import { CompareOptionsSchema, parseCommandOptions, type CompareOptionsInput } from '../config/command-options.js';
import { compareRuns, type CompareResult } from './compare-runs.js';


export interface SessionOptions {
  /** Aborting it stops the run: sending stops, requests in flight are cancelled, what was measured is returned (`run.interrupted`). */
  signal?: AbortSignal;
  /** Progress lines (what starts, slow steps, warnings), secrets removed. */
  onLog?: (line: string) => void;
  /** The runner's snapshots (about once a second over HTTP; per step frame in virtual time). */
  onProgress?: (snapshot: ProgressSnapshot) => void;
  /** Where the API key (`target.api_key_env`) is read; default process.env. */
  env?: NodeJS.ProcessEnv;
}

/** The stages of a sweep: a list of rates or concurrencies, `auto` stages, or a search (needs `slos` in the spec). */
export type SweepStages =
  | { request_rates: number[] }
  | { concurrencies: number[] }
  | { auto: number }
  /** One stage per batch size (embeddings, rerank, score) at the spec's own load (`load.max_concurrency`, `concurrency` or `request_rate`). */
  | { batch_sizes: number[] }
  | { search: 'rate' | 'concurrency'; precision?: number; start?: number; max?: number };

/** Raised when the signal aborted before the load started: nothing was sent and nothing written. */
export class AbortedBeforeStart extends Error {
  override readonly name = 'AbortError';
  constructor() {
    super('aborted before the load started: nothing was sent');
  }
}

/** A validated run spec with every default applied. @throws UserError naming the field. */
export function runSpec(input: RunSpecInput = {}): RunSpec {
  const spec = validateSpec(RunSpecSchema, structuredClone(input) as Record<string, unknown>, { flagPaths: new Map(), configPath: null });
  checkRunSpec(spec);
  return spec;
}

function contextOf(o: SessionOptions): SessionContext {
  const onProgress = o.onProgress;
  return {
    ...(o.env ? { env: o.env } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.onLog ? { log: o.onLog } : {}),
    ...(onProgress
      ? { progress: async () => ({ update: (p: ProgressSnapshot) => onProgress(p), record: () => {}, judged: () => {}, flush: () => {}, finish: () => {} }) }
      : {}),
  };
}

/** One run against `spec.target.base_url`, or the built-in simulator over HTTP when it is null. */
export async function run(spec: RunSpecInput, o: SessionOptions = {}): Promise<RunResult> {
  const out = await runSession(runSpec(spec), contextOf(o));
  if (!out.started) throw new AbortedBeforeStart();
  return out.result;
}

/** The spec's load through the simulated engine in virtual time (`sim run`). */
export async function simulate(spec: RunSpecInput, o: SessionOptions = {}): Promise<RunResult> {
  const s = runSpec(spec);
  return (await simulateRun(s, contextOf(o))).result;
}

/**
 * The spec `repeat` times (`run --repeat N`; `virtual: true`: `sim run --repeat N`), each run with its
 * own seed and prompt salt, into one repeat directory; returns repeats.json's content and where it is (docs/repeats.md).
 */
export async function runRepeated(spec: RunSpecInput, repeat: number, o: SessionOptions & { virtual?: boolean } = {}): Promise<{ dir: string; repeats: RepeatsFile; results: RunResult[] }> {
  const out = await repeatSession(runSpec(spec), { repeat, driver: o.virtual ? 'virtual' : 'http' }, contextOf(o));
  if (out.runs.length === 0) throw new AbortedBeforeStart();
  return { dir: out.dir, repeats: out.file, results: out.runs.map((r) => r.result) };
}

function stageSequenceOf(stages: SweepStages): StageSequence {
  if ('request_rates' in stages) return { mode: 'list', loads: stages.request_rates.map((rate) => ({ kind: 'rate', rate })) };
  if ('concurrencies' in stages) return { mode: 'list', loads: stages.concurrencies.map((concurrency) => ({ kind: 'concurrency', concurrency })) };
  if ('auto' in stages) return { mode: 'auto', n: stages.auto };
  if ('batch_sizes' in stages) return { mode: 'batch', sizes: parseBatchSizeList(stages.batch_sizes.map(String).join(','), 'batch_sizes'), load: null };
  const integer = stages.search === 'concurrency';
  const start = stages.start ?? 1;
  return { mode: 'search', kind: stages.search, options: { start, precision: stages.precision ?? 0.05, min: integer ? 1 : Math.min(start, 1) / 64, max: stages.max ?? 1024, integer } };
}

/** Stage after stage at rising load; `virtual: true` runs it in virtual time (`sim sweep`). */
export async function sweep(spec: RunSpecInput, stages: SweepStages, o: SessionOptions & { virtual?: boolean } = {}): Promise<SweepResult> {
  const out = await sweepSession(runSpec(spec), stageSequenceOf(stages), { driver: o.virtual ? 'virtual' : 'http' }, contextOf(o));
  if (!out.started) throw new AbortedBeforeStart();
  return out.result;
}

/** Every figure of a saved run (directory or records.jsonl) recomputed; `judge` in the run spec's shape re-judges it (`slos`, `goodput`, `validity`, `cost`). */
export async function analyze(path: string, judge: Pick<RunSpecInput, 'slos' | 'goodput' | 'validity' | 'cost'> = {}, o: Pick<SessionOptions, 'onLog'> = {}): Promise<RunResult> {
  return (await analyzeRun(path, { spec: judge as Record<string, unknown> }, contextOf(o))).result;
}

/** A capacity plan (`infermeter plan`): options named as the CLI's flags in camelCase (`traffic`, `slo`, `hardware`, `from`, …). @throws UserError; a `from` run that is invalid throws unless `allowInvalid`. */
export async function plan(input: PlanInput, o: Pick<SessionOptions, 'onLog'> = {}): Promise<PlanReport> {
  const out = await planCapacity(planFlags(input as Record<string, unknown>), contextOf(o));
  if (out.invalid !== null) throw new UserError(`plan: ${out.invalid} (allowInvalid: true accepts it)`);
  return out.report;
}


/**
 * `infermeter compare`: each of `paths[1..]` against the baseline `paths[0]` (run directories,
 * sweep directories, vLLM result files). Options named as the CLI's flags in camelCase
 * (`failOnRegression: '5%'`, `resamples`, …). Returns `compare --json`'s object; a figure past
 * `failOnRegression` is marked `regression: true` in it and a failed gate in `gates`.
 * @throws UserError; an invalid run throws unless `allowInvalid`.
 */
export function compare(paths: readonly string[], options: CompareOptionsInput = {}, o: Pick<SessionOptions, 'onLog'> = {}): CompareResult {
  const out = compareRuns(paths, parseCommandOptions(CompareOptionsSchema, options as Record<string, unknown>), contextOf(o));
  if (out.result === null) throw new UserError(`compare: ${out.invalid.map((s) => `${s.label} is an invalid run (${s.reason})`).join('; ')} (allowInvalid: true compares it anyway)`);
  return out.result;
}
