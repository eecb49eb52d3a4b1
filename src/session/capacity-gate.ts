/**
 * The capacity check of `infermeter run`, before anything is sent: the self-test
 * (runner/capacity-probe.ts), the plan's need against it (runner/capacity-check.ts), one line
 * saying both, --workers chosen when not given, and a refusal (exit 2) when even every core of
 * this machine cannot drive the plan — unless --allow-invalid. The quickstart (built-in
 * simulator, demo load) lowers its demo rate to what the machine carries instead of refusing
 * (keeping its ~20 s), and on a machine busy or crowded now says in one line, before t = 0, that
 * the demo will likely end INVALID and what to do instead. A crowded machine (load average per
 * core above CONTENDED_LOAD_PER_CORE) is a warning line for any other run.
 * The figures go to result.json `client.capacity_check` (docs/result-schema.md).
 */
import { availableParallelism } from 'node:os';
import { DEFAULT_VALIDITY_THRESHOLDS } from '../analysis/run-validity.js';
import { UserError } from '../errors/user-error.js';
import { busyWhy, capacityLine, contentionPhrase, CONTENDED_LOAD_PER_CORE, loadNeed, maxWorkers, planCapacity, refusalLine, type CapacityPlan, type LoadNeed, type ProbeFigures } from '../runner/capacity-check.js';
import { probeCapacity } from '../runner/capacity-probe.js';
import type { Workload } from '../workload/index.js';
import { SIM_DEMO_DEFAULTS, type RunSpec } from './run-spec.js';

/** Streams per thread in the self-test of an open loop without --max-concurrency (its in-flight count is the server's). */
const OPEN_LOOP_STREAMS = 16;
/** Longest answer the self-test streams: longer ones only make it slower to finish a request. */
const MAX_PROBE_TOKENS = 1024;

export interface CapacityCheck {
  probe: ProbeFigures;
  need: LoadNeed;
  cores: number;
  plan: CapacityPlan;
  /** What the check changed: the workers it chose, the demo rate it lowered; null when nothing. */
  action: string | null;
}

export interface GateOptions {
  /** The self-test (a test gives fixed figures). */
  probe?: typeof probeCapacity;
  /** Where INFERMETER_CAPACITY_CHECK=off is read: the test suites' switch (vitest.config.ts), since the self-test is wall-clock. */
  env?: NodeJS.ProcessEnv;
  cores?: number;
}

const isDemo = (spec: RunSpec) => spec.target.base_url === null && spec.load.request_rate === SIM_DEMO_DEFAULTS.request_rate && spec.load.num_prompts === SIM_DEMO_DEFAULTS.num_prompts && spec.load.duration_ms === null && spec.load.concurrency === null;

/** The self-test's shape for a spec run on `threads` load threads. */
function probeShape(spec: RunSpec, workload: Workload, threads: number): { concurrency: number; outputTokens: number } {
  const load = spec.load;
  const concurrency = load.concurrency !== null ? Math.ceil(load.concurrency / threads) : load.max_concurrency !== null ? Math.ceil(load.max_concurrency / threads) : OPEN_LOOP_STREAMS;
  const outputTokens = Math.min(MAX_PROBE_TOKENS, Math.max(1, workload.lengthBounds?.().output ?? spec.workload.random_output_len ?? 128));
  return { concurrency, outputTokens };
}

const skipped = (spec: RunSpec, workload: Workload, o: GateOptions) => !spec.validity.capacity_check || (o.env ?? process.env).INFERMETER_CAPACITY_CHECK === 'off' || workload.timed !== undefined;

/**
 * A distributed worker's check of its share (1/N of the plan, on its own threads), after it
 * joined: said, never refused — the worker is in the start barrier, and the coordinator's
 * verdict judges the run.
 */
export async function shareCapacityCheck(spec: RunSpec, workload: Workload, share: { index: number; count: number }, threads: number, log: (line: string) => void, o: GateOptions = {}): Promise<CapacityCheck | null> {
  if (skipped(spec, workload, o)) return null;
  const load = spec.load;
  const shape = probeShape({ ...spec, load: { ...load, concurrency: load.concurrency === null ? null : Math.ceil(load.concurrency / share.count), max_concurrency: load.max_concurrency === null ? null : Math.ceil(load.max_concurrency / share.count) } }, workload, threads);
  const probe = await (o.probe ?? probeCapacity)(shape);
  const need = loadNeed({ request_rate: load.request_rate / share.count, concurrency: load.concurrency }, shape.outputTokens);
  const lagLimit = DEFAULT_VALIDITY_THRESHOLDS.dispatchLagP99Ms;
  const plan = planCapacity(probe, need, o.cores ?? availableParallelism(), threads, lagLimit);
  log(`worker ${share.index}: ${capacityLine(plan, need, `${shape.outputTokens} output tokens, ${shape.concurrency} streams per worker thread`).replace('the plan needs', `its share (1/${share.count}) needs`)}`);
  if (!plan.fits) log(`worker ${share.index}: ${refusalLine(plan, need, probe, lagLimit).replace(/^capacity check: /, '').replace(/ \(or --allow-invalid.*\)$/, '')} — this worker runs its share anyway; expect the verdict to say the client fell behind`);
  return { probe, need, cores: o.cores ?? availableParallelism(), plan, action: plan.fits ? null : 'share beyond this machine, run anyway' };
}

export async function capacityGate(spec: RunSpec, workload: Workload, log: (line: string) => void, o: GateOptions = {}): Promise<CapacityCheck | null> {
  if (skipped(spec, workload, o)) return null;
  const load = spec.load;
  const cores = o.cores ?? availableParallelism();
  const given = load.workers;
  const { concurrency, outputTokens } = probeShape(spec, workload, Math.max(1, given ?? maxWorkers(cores)));
  log(`capacity check: measuring what this client can drive (${concurrency} streams of ${outputTokens} tokens per worker, ~1.5 s; --no-capacity-check skips it) …`);
  const probe = await (o.probe ?? probeCapacity)({ concurrency, outputTokens });
  const need = loadNeed(load, outputTokens);
  const lagLimit = DEFAULT_VALIDITY_THRESHOLDS.dispatchLagP99Ms;
  const plan = planCapacity(probe, need, cores, given, lagLimit);
  const shape = `${outputTokens} output tokens, ${concurrency} streams per worker; event-loop delay p99 ${probe.idle_lag_p99_ms.toFixed(1)} ms idle, ${probe.dispatch_lag_p99_ms.toFixed(1)} ms saturated; ${contentionPhrase(probe, cores)}`;
  log(capacityLine(plan, need, shape));
  let action: string | null = null;
  if (given === null && plan.workers_needed !== null) {
    load.workers = plan.workers;
    action = `--workers ${plan.workers} chosen`;
  }
  if (isDemo(spec)) {
    action = demoAction(spec, plan, probe, cores, lagLimit, log) ?? action;
  } else if (!plan.fits) {
    if (spec.validity.allow_invalid) {
      log(`${refusalLine(plan, need, probe, lagLimit).replace(/ \(or --allow-invalid.*\)$/, '')}; running anyway (--allow-invalid): expect the client to fall behind`);
      action = 'beyond capacity, run anyway (--allow-invalid)';
    } else throw new UserError(refusalLine(plan, need, probe, lagLimit));
  } else if (plan.contended) {
    log(`capacity check: this machine is crowded (${contentionPhrase(probe, cores)}: more than ${CONTENDED_LOAD_PER_CORE} tasks per core over the last minute), so the schedule may slip once the run is under way; if the verdict says the client fell behind, free some cores or run with --distributed on idle worker machines`);
    action = action ?? 'crowded machine, said';
  }
  return { probe, need, cores, plan, action };
}

/** The demo's requests last ~20 s at whatever rate it runs (200 prompts at 10 req/s). */
const DEMO_SECONDS = SIM_DEMO_DEFAULTS.num_prompts / SIM_DEMO_DEFAULTS.request_rate;
/** Fewest prompts a lowered demo sends: enough for its percentiles to mean something. */
const DEMO_MIN_PROMPTS = 20;

/**
 * The quickstart against the plan: beyond the client → the demo's rate (and prompts, keeping its
 * ~20 s) lowered to what the machine carries; busy or crowded → one line before t = 0 saying the
 * demo will likely end INVALID, why, and the ways out. It never refuses: the demo shows what
 * infermeter does, and its verdict says whether the figures are the server's.
 */
function demoAction(spec: RunSpec, plan: CapacityPlan, probe: ProbeFigures, cores: number, lagLimit: number, log: (line: string) => void): string | null {
  const load = spec.load;
  let action: string | null = null;
  if (!plan.fits && !plan.busy) {
    // The quickstart carries what the machine can, rather than ending INVALID.
    const rate = Math.max(1, Math.floor(plan.capacity.requests_per_s));
    const prompts = Math.max(DEMO_MIN_PROMPTS, Math.round(rate * DEMO_SECONDS));
    log(`quickstart: this machine carries ~${rate} req/s of the demo beside the built-in simulator now; the demo sends ${prompts} prompts at ${rate} req/s instead of ${load.num_prompts} at ${load.request_rate} (give --request-rate to choose)`);
    load.request_rate = rate;
    load.num_prompts = prompts;
    action = `demo lowered to ${prompts} prompts at ${rate} req/s`;
  }
  if (plan.busy || plan.contended) {
    const why = [plan.contended || probe.load_per_core !== null ? contentionPhrase(probe, cores) : null, plan.busy ? busyWhy(probe, lagLimit) : null].filter((x) => x !== null).join('; ');
    log(`quickstart: this machine is too ${plan.busy ? 'busy' : 'crowded'} now for a valid demo (${why}): it runs anyway and will likely end INVALID because the client falls behind its schedule; run it again when the machine is quieter, or point it at a server on another machine with --base-url`);
    action = action === null ? `demo run on a ${plan.busy ? 'busy' : 'crowded'} machine` : `${action}, on a ${plan.busy ? 'busy' : 'crowded'} machine`;
  }
  return action;
}

/** result.json `client.capacity_check`. */
export function capacitySection(c: CapacityCheck): Record<string, unknown> {
  return {
    probe: c.probe,
    cores: c.cores,
    per_worker: c.plan.per_worker,
    max_workers: c.plan.max_workers,
    workers_needed: c.plan.workers_needed,
    workers: c.plan.workers,
    capacity: c.plan.capacity,
    need: c.need,
    busy: c.plan.busy,
    contended: c.plan.contended,
    fits: c.plan.fits,
    machines_needed: c.plan.machines_needed,
    action: c.action,
  };
}
