/**
 * The flags of a distributed run: `run --distributed URL --workers-expected N` (coordinator) and
 * `worker --nats URL [--index I]` (docs/distributed.md).
 */
import { Option, type Command } from 'commander';
import { UserError } from '../errors/user-error.js';
import { parseDurationMs } from '../config/units.js';
import { checkRunId } from '../distributed/protocol.js';
import type { CoordinatorFlags } from '../session/coordinator-options.js';

export type { CoordinatorFlags };

export interface WorkerFlags {
  natsUrl: string;
  index: number;
  runId: string;
  waitMs: number;
}

const DEFAULT_RUN_ID = 'infermeter';

export function registerCoordinatorOptions(cmd: Command): void {
  cmd.optionsGroup('Distributed (docs/distributed.md):');
  cmd.addOption(new Option('--distributed <nats-url>', 'coordinate a run whose load comes from `infermeter worker` processes, over NATS with JetStream (nats://HOST:4222)'));
  cmd.addOption(new Option('--workers-expected <n>', 'worker processes the run waits for (with --distributed)'));
  cmd.addOption(new Option('--run-id <id>', `names the run on NATS; workers give the same (default: ${DEFAULT_RUN_ID}); a restarted coordinator with the same id resumes the run`));
  cmd.addOption(new Option('--worker-wait <duration>', 'how long to wait for every worker to be ready (default 10m)'));
  cmd.addOption(new Option('--worker-timeout <duration>', 'a worker without a heartbeat for this long is lost: the run ends with a partial result (default 10s)'));
  cmd.addOption(new Option('--start-delay <duration>', 'the start is broadcast this far ahead, so every worker begins together (default 3s)'));
  cmd.addOption(new Option('--store-results', 'keep the finished run (or sweep) directory on NATS (bucket infermeter-results-<run id>; infermeter k8s fetch brings it back); a coordinator restarted after the end reports it and exits with its code instead of waiting for workers'));
}

export function registerWorkerOptions(cmd: Command): void {
  cmd.optionsGroup('Distributed (docs/distributed.md):');
  cmd.addOption(new Option('--nats <url>', 'the NATS server the coordinator uses (nats://HOST:4222)').makeOptionMandatory());
  cmd.addOption(new Option('--index <i>', 'this worker\'s index, 0 … N−1 (default: $JOB_COMPLETION_INDEX, as a Kubernetes Indexed Job sets it)'));
  cmd.addOption(new Option('--run-id <id>', `the coordinator's --run-id (default: ${DEFAULT_RUN_ID})`));
  cmd.addOption(new Option('--wait <duration>', 'how long to wait for NATS and the coordinator (default 10m)'));
}

function duration(v: unknown, flag: string, fallback: number): number {
  if (v === undefined) return fallback;
  try {
    const ms = parseDurationMs(String(v), 's');
    if (ms <= 0) throw new Error('not positive');
    return ms;
  } catch {
    throw new UserError(`${flag}: expected a duration such as 30s or 10m, got "${String(v)}"`);
  }
}

/** Null when the run is not distributed; flags that need --distributed are refused without it. */
export function coordinatorFlags(opts: Record<string, unknown>): CoordinatorFlags | null {
  if (opts.distributed === undefined) {
    for (const f of ['workersExpected', 'runId', 'workerWait', 'workerTimeout', 'startDelay', 'storeResults']) {
      if (opts[f] !== undefined) throw new UserError(`--${f.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: only with --distributed`);
    }
    return null;
  }
  const workers = Number(opts.workersExpected);
  if (opts.workersExpected === undefined) throw new UserError('--workers-expected: required with --distributed (how many `infermeter worker` processes will join)');
  if (!Number.isInteger(workers) || workers < 1 || workers > 10_000) throw new UserError(`--workers-expected: expected a whole number from 1 to 10000, got "${String(opts.workersExpected)}"`);
  return {
    natsUrl: String(opts.distributed),
    workers,
    runId: checkRunId(typeof opts.runId === 'string' ? opts.runId : DEFAULT_RUN_ID),
    workerWaitMs: duration(opts.workerWait, '--worker-wait', 600_000),
    workerTimeoutMs: duration(opts.workerTimeout, '--worker-timeout', 10_000),
    startDelayMs: duration(opts.startDelay, '--start-delay', 3_000),
    storeResults: opts.storeResults === true,
  };
}

export function workerFlags(opts: Record<string, unknown>, env: NodeJS.ProcessEnv): WorkerFlags {
  const raw = opts.index ?? env.JOB_COMPLETION_INDEX;
  if (raw === undefined || raw === '') throw new UserError('--index: required (or $JOB_COMPLETION_INDEX, which a Kubernetes Indexed Job sets)');
  const index = Number(raw);
  if (!Number.isInteger(index) || index < 0) throw new UserError(`${opts.index !== undefined ? '--index' : '$JOB_COMPLETION_INDEX'}: expected a whole number ≥ 0, got "${String(raw)}"`);
  return {
    natsUrl: String(opts.nats),
    index,
    runId: checkRunId(typeof opts.runId === 'string' ? opts.runId : DEFAULT_RUN_ID),
    waitMs: duration(opts.wait, '--wait', 600_000),
  };
}
