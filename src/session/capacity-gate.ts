/**
 * The capacity check of `infermeter run`, before anything is sent: the self-test
 * (runner/capacity-probe.ts), the plan's need against it (runner/capacity-check.ts), one line
 * saying both, --workers chosen when not given, and a refusal (exit 2) when even every core of
 * this machine cannot drive the plan — unless --allow-invalid. The quickstart (built-in
 * simulator, demo load) lowers its demo rate to what the machine carries instead of refusing.
 * The figures go to result.json `client.capacity_check` (docs/result-schema.md).
 */
import { availableParallelism } from 'node:os';
import { DEFAULT_VALIDITY_THRESHOLDS } from '../analysis/run-validity.js';
import { UserError } from '../errors/user-error.js';
import { capacityLine, loadNeed, maxWorkers, planCapacity, refusalLine, type CapacityPlan, type LoadNeed, type ProbeFigures } from '../runner/capacity-check.js';
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
  const shape = `${outputTokens} output tokens, ${concurrency} streams per worker; event-loop delay p99 ${probe.idle_lag_p99_ms.toFixed(1)} ms idle, ${probe.dispatch_lag_p99_ms.toFixed(1)} ms saturated`;
  log(capacityLine(plan, need, shape));
  let action: string | null = null;
  if (given === null && plan.workers_needed !== null) {
    load.workers = plan.workers;
    action = `--workers ${plan.workers} chosen`;
  }
  if (!plan.fits) {
    if (isDemo(spec) && plan.busy) {
      log(`quickstart: ${refusalLine(plan, need, probe, lagLimit).replace(/^capacity check: /, '').replace(/; free some cores.*$/, '')}: the demo runs, and its verdict will likely say the client fell behind`);
      action = 'demo run on a busy machine';
    } else if (isDemo(spec)) {
      // The quickstart carries what the machine can, rather than ending INVALID.
      const rate = Math.max(1, Math.floor(plan.capacity.requests_per_s));
      log(`quickstart: this machine carries ~${rate} req/s of the demo beside the built-in simulator now; the demo runs at ${rate} req/s instead of ${load.request_rate} (give --request-rate to choose)`);
      load.request_rate = rate;
      action = `demo rate lowered to ${rate} req/s`;
    } else if (spec.validity.allow_invalid) {
      log(`${refusalLine(plan, need, probe, lagLimit).replace(/ \(or --allow-invalid.*\)$/, '')}; running anyway (--allow-invalid): expect the client to fall behind`);
      action = 'beyond capacity, run anyway (--allow-invalid)';
    } else throw new UserError(refusalLine(plan, need, probe, lagLimit));
  }
  return { probe, need, cores, plan, action };
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
    fits: c.plan.fits,
    machines_needed: c.plan.machines_needed,
    action: c.action,
  };
}
