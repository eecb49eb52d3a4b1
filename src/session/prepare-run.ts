/**
 * What `run` and `sim run` share before and after their drivers: the workload built from the
 * spec, how many requests the run has and which are warm-up or cool-down, and the load as
 * result.json describes it.
 */
import { UserError } from '../errors/user-error.js';
import { resolveArrivalKind } from '../load/arrivals.js';
import { phaseBoundsProblem, type PhaseBounds } from '../load/phases.js';
import { hasRamp, rampProblem } from '../load/ramp.js';
import { loadRamp } from '../load/send-times.js';
import type { LoadSpec } from '../config/schema.js';
import { loadEndpointPlugin, resolveEndpointKind, workloadShapeOf } from '../client/endpoints/registry.js';
import { createWorkload, type Workload, type WorkloadSpec } from '../workload/index.js';
import { checkEndpointKindFits, type RunSpec } from './run-spec.js';
import { bigDatasetBytes, mib, secondsSince } from './slow-steps.js';

export interface PreparedRun {
  workload: Workload;
  /** Requests of the whole run (a trace bounds it); null when the run stops by time. */
  totalRequests: number | null;
  phases: PhaseBounds;
}

/**
 * Builds the workload and checks the phases, so every user error surfaces before anything starts.
 * `lengthsOnly`: virtual time, which needs token counts, not prompt text (WorkloadOptions).
 */
export async function prepareRun(spec: RunSpec, warn: (line: string) => void, opts: { lengthsOnly?: boolean } = {}): Promise<PreparedRun> {
  const load = spec.load;
  const plugin = await loadEndpointPlugin(spec.target.endpoint_type);
  if (plugin) checkEndpointKindFits(spec, plugin);
  // JSON.parse of a big dataset takes seconds before anything else is said.
  const big = bigDatasetBytes(spec.workload);
  const t0 = performance.now();
  if (big !== null) warn(`workload: reading ${spec.workload.dataset_path} (${mib(big)})…`);
  const workload = await createWorkload(spec.workload, {
    seed: load.seed,
    endpointKind: workloadShapeOf(spec.target),
    batchSize: load.batch_size ?? 1,
    numPrompts: load.num_prompts ?? undefined,
    warn,
    ...(opts.lengthsOnly ? { lengthsOnly: true } : {}),
  });
  if (big !== null) warn(`workload: read in ${secondsSince(t0)}`);
  const kind = plugin ?? resolveEndpointKind(spec.target.endpoint_type, spec.target.endpoint);
  const unsent = workload.media?.find((m) => !kind.media?.includes(m));
  if (unsent) throw new UserError(`workload: ${spec.workload.dataset_name} sends ${unsent === 'image' ? 'images' : 'audio'}, which the ${kind.name} endpoint does not take; use --endpoint-type chat (/v1/chat/completions)`);
  if (kind.input === 'audio' && !workload.media?.includes('audio')) throw new UserError(`workload: the ${kind.name} endpoint sends an audio clip per request, and --dataset-name ${spec.workload.dataset_name} has none; use --dataset-name random-audio, or audio --dataset-path DIR`);
  if (workload.skipped > 0) warn(`workload: skipped ${workload.skipped} malformed dataset entries`);
  const totalRequests = workload.timed ? Math.min(load.num_prompts ?? Infinity, workload.timed.length) : load.num_prompts;
  const ramp = loadRamp(load);
  const phases: PhaseBounds = { warmup: load.warmup, cooldown: load.cooldown, totalRequests, durationMs: load.duration_ms, ...(hasRamp(ramp) ? { ramp } : {}) };
  const problem = rampProblem(ramp, { rate: load.request_rate, closed: load.concurrency !== null, trace: workload.timed !== undefined }) ?? phaseBoundsProblem(phases);
  if (problem) throw new UserError(problem);
  return { workload, totalRequests, phases };
}

/**
 * Refuses, before any load and before any prompt is built, a workload whose longest prompt plus
 * output exceeds the context length the server states (every such request would be a 400).
 */
export function checkContextLength(workload: Workload, maxModelLen: number | null, where: string): void {
  if (maxModelLen === null || !workload.lengthBounds) return;
  const b = workload.lengthBounds();
  if (b.prompt === null) return;
  const out = b.output ?? 0;
  if (b.prompt + out <= maxModelLen) return;
  const n = (x: number) => x.toLocaleString('en-US');
  throw new UserError(
    `workload: prompts of up to ${n(b.prompt)} tokens${out > 0 ? ` plus up to ${n(out)} output tokens` : ''} exceed the context length of ${n(maxModelLen)} tokens that ${where} states (max_model_len); ask for shorter inputs or outputs (--random-input-len, --random-output-len, …)`,
  );
}

/**
 * ignore_eos when the spec does not say: as vLLM's `bench serve` (vllm/benchmarks/serve.py), on
 * for the random dataset against OpenAI-compatible backends — so the same command asks for the
 * same output lengths — and off for every other dataset, whose output lengths are the entries'.
 * Always on for the built-in simulator, whose natural (EOS) lengths are made up anyway — except
 * for the eval suite, whose answers must end where they end (docs/quality.md).
 */
export function defaultIgnoreEos(w: WorkloadSpec, simulated: boolean): boolean {
  // The eval suite's answers end where they end (docs/quality.md), on a real server and in the simulator's answer mode.
  if (w.tasks ? w.tasks.some((t) => (t.dataset_name ?? w.dataset_name) === 'eval') : w.dataset_name === 'eval') return false;
  if (simulated) return true;
  if (w.tasks) return w.tasks.every((t) => (t.dataset_name ?? w.dataset_name) === 'random');
  return w.dataset_name === 'random';
}

/**
 * One line on prompt reuse across runs: the salt of synthetic prompts (and how to replay them), or
 * that a file dataset's prompts are the same in every run, so a server's prefix cache may still
 * hold them from an earlier one.
 */
export function describePromptReuse(spec: RunSpec, log: (line: string) => void): void {
  const w = spec.workload;
  const names = w.tasks ? w.tasks.map((t) => t.dataset_name ?? w.dataset_name) : [w.dataset_name];
  const files = [...new Set(names.filter((n) => n === 'sharegpt' || n === 'jsonl' || n === 'hf'))];
  if (w.prompt_salt) log(`prompts: salt ${w.prompt_salt} (recorded in spec.json; --prompt-salt ${w.prompt_salt} with the same --seed replays these prompts)`);
  if (files.length > 0) log(`prompts: ${files.join(', ')} prompts are the same in every run; a server's prefix cache may still hold them from an earlier run (restart it, or turn prefix caching off, to measure cold)`);
  const media = [...new Set(names.filter((n) => n === 'images' || n === 'audio'))];
  if (media.length > 0) log(`prompts: the ${media.join(' and ')} files are the same in every run; a server's multimodal cache may still hold them from an earlier run`);
}

/** The `load` section of result.json. */
export function describeLoad(load: LoadSpec, o: { trace: boolean; numPrompts: number | null; ignoreEos: boolean }): Record<string, unknown> {
  const open = load.concurrency === null && !o.trace;
  return {
    mode: load.concurrency !== null ? 'closed' : o.trace ? 'trace' : 'open',
    request_rate: open ? (Number.isFinite(load.request_rate) ? load.request_rate : 'inf') : null,
    arrival: open ? resolveArrivalKind(load.arrival, load.burstiness) : null,
    burstiness: load.burstiness,
    max_concurrency: load.max_concurrency,
    concurrency: load.concurrency,
    num_prompts: o.numPrompts,
    duration_ms: load.duration_ms,
    ramp_up_ms: load.ramp_up_ms,
    ramp_down_ms: load.ramp_down_ms,
    warmup: load.warmup,
    cooldown: load.cooldown,
    seed: load.seed,
    ignore_eos: o.ignoreEos,
  };
}
