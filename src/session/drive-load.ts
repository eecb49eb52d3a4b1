/**
 * One load against an open target through the worker pool (`runPool`): a `run`, and every HTTP
 * stage of a sweep.
 */
import { availableParallelism } from 'node:os';
import type { ClientHealth } from '../analysis/run-validity.js';
import type { PhaseBounds } from '../load/phases.js';
import { preconnectCount, type LoadJob } from '../runner/load-job.js';
import type { ProgressListener } from '../runner/progress.js';
import type { RecordSink } from '../runner/run-load.js';
import { runPool, type PoolOutcome } from '../runner/worker-pool.js';
import type { RunSpec } from './run-spec.js';
import type { OpenTarget } from './run-target.js';
import { secondsSince, workerPreparation } from './slow-steps.js';
import type { DriveHooks, DriveOutcome } from './measure.js';

export interface Driven extends DriveOutcome {
  outcome: PoolOutcome;
  workers: number;
  /** Wall clock of t = 0 and its value on the host's monotonic clock (ns). */
  startedAt: Date;
  monotonicOrigin: string | null;
  mainThreadElu: number;
}

export async function driveLoad(
  spec: RunSpec,
  target: OpenTarget,
  plan: { totalRequests: number | null; phases: PhaseBounds },
  hooks: {
    onRecord: RecordSink;
    onProgress?: ProgressListener;
    signal?: AbortSignal;
    /** At t = 0: its value on the host's monotonic clock (ns) and the wall clock. */
    onStart?: (originNs: string, startedAt: Date) => void;
    /** Progress lines for a slow preparation before t = 0 (slow-steps.ts). */
    log?: (line: string) => void;
  },
): Promise<Driven> {
  const load = spec.load;
  // One core stays with the coordinator (records, progress, an in-process simulator): on 2 cores,
  // 1 worker kept send lag p99 at 0.2 ms at 1,000 req/s where 2 workers gave 2 ms (docs/performance.md).
  const workers = threadsFor(load, load.workers ?? Math.max(1, availableParallelism() - 1));
  const jobFor = (offset: number, step: number): LoadJob => ({
    load,
    target: spec.target,
    workload: spec.workload,
    keepText: spec.output.keep_text,
    baseUrl: target.baseUrl,
    model: target.model,
    apiKey: target.apiKey,
    proxy: target.proxy,
    ignoreEos: target.ignoreEos,
    tokenScale: target.tokenScale,
    totalRequests: plan.totalRequests,
    phases: plan.phases,
    shard: { offset, step },
    warn: false,
  });
  let startedAt = new Date();
  let monotonicOrigin: string | null = null;
  const mainElu0 = performance.eventLoopUtilization();
  const preparing = hooks.log ? workerPreparation(spec.workload, workers, preconnectCount(load, plan.totalRequests)) : null;
  const t0 = performance.now();
  if (preparing) hooks.log!(preparing);
  const outcome = await runPool(jobFor, workers, {
    onRecord: hooks.onRecord,
    ...(hooks.onProgress ? { onProgress: hooks.onProgress } : {}),
    onStart: (originNs) => {
      startedAt = new Date();
      monotonicOrigin = originNs;
      hooks.onStart?.(originNs, startedAt);
      if (preparing) hooks.log!(`load: ready in ${secondsSince(t0)}; t = 0`);
    },
    ...(hooks.signal ? { signal: hooks.signal } : {}),
  });
  return { outcome, records: outcome.records, interrupted: outcome.interrupted, workers, startedAt, monotonicOrigin, mainThreadElu: performance.eventLoopUtilization(mainElu0).utilization };
}

/** The in-process worker pool as the pipeline's driver (measure.ts). */
export function poolDriver(spec: RunSpec, target: OpenTarget, plan: { totalRequests: number | null; phases: PhaseBounds }, o: { signal?: AbortSignal; log?: (line: string) => void }): (hooks: DriveHooks) => Promise<Driven> {
  return (hooks) =>
    driveLoad(spec, target, plan, {
      onRecord: hooks.onRecord,
      onProgress: hooks.onProgress,
      onStart: (originNs, startedAt) => hooks.onStart(originNs, startedAt.getTime()),
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.log ? { log: o.log } : {}),
    });
}

/** Load threads `driveLoad` will use for this spec (0: the load runs on this thread). */
export function loadThreads(spec: RunSpec): number {
  return spec.load.workers ?? 1;
}

/**
 * Load threads for a load: a closed loop (or a session pool) never gets more threads than users —
 * a thread without a user would send nothing, and its share of the requests would be lost.
 * 0 (the load on the main thread) stays 0.
 */
export function threadsFor(load: RunSpec['load'], threads: number): number {
  return load.concurrency !== null && threads > load.concurrency ? Math.max(1, load.concurrency) : threads;
}

/** The client's health for the validity verdict. */
export function healthOf(spec: RunSpec, d: Driven, replay: boolean): ClientHealth {
  const load = spec.load;
  return {
    dispatchLagMs: d.outcome.dispatchLagMs,
    eventLoopDelayP99Ms: d.outcome.eventLoopDelayP99Ms,
    // With an in-process simulator and no workers the main thread also serves the simulator, so its busy time is not all the client's.
    eventLoopUtilization: d.outcome.eventLoopUtilization,
    burst: load.concurrency === null && !replay && load.request_rate === Infinity,
  };
}

/** result.json's `client` section. */
export function clientOf(spec: RunSpec, d: Driven, target: OpenTarget): Record<string, unknown> {
  return {
    workers: d.workers,
    busy_poll: spec.load.busy_poll,
    preconnected: d.outcome.preconnected,
    stale_socket_retries: d.outcome.staleSocketRetries,
    event_loop_utilization: d.outcome.eventLoopUtilization,
    main_thread_event_loop_utilization: d.mainThreadElu,
    preflight: target.preflight,
  };
}
