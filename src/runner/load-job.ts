/**
 * One shard of a run, self-contained and serializable, so it runs the same in the main
 * thread (`--workers 0`) or in a worker thread: build the workload, the schedule and the
 * client from the spec, run the dispatch loop, and measure the thread's own health.
 */
import { monitorEventLoopDelay, performance as perf } from 'node:perf_hooks';
import { loadRamp, sendTimes } from '../load/send-times.js';
import { hasRamp } from '../load/ramp.js';
import type { PhaseBounds } from '../load/phases.js';
import type { Clock, RequestRecord } from '../record/record.js';
import type { LoadSpec, TargetSpec } from '../config/schema.js';
import { HttpTarget } from '../client/http-client.js';
import { targetConfig } from '../client/target-config.js';
import type { ProxySettings } from '../util/proxy.js';
import { loadEndpointPlugin, workloadShapeOf } from '../client/endpoints/registry.js';
import { createWorkload, type Workload, type WorkloadSpec } from '../workload/index.js';
import { defaultWarn } from '../workload/datasets/entries.js';
import type { ProgressListener } from './progress.js';
import { BusyPoll } from './busy-poll.js';
import { calibrateSpin } from '../util/spin.js';
import { createRunClock } from './run-clock.js';
import { DEFAULT_RETRY_BACKOFF } from './retry-policy.js';
import { runLoad, type LoadPlan, type RecordSink } from './run-load.js';
import { shardCount, shardIterator, shardShare, shardWorkload, type Shard } from './shard.js';

export interface LoadJob {
  load: LoadSpec;
  target: TargetSpec;
  workload: WorkloadSpec;
  keepText: boolean;
  /** Resolved by the coordinator (simulator URL, model from pre-flight, key from the environment). */
  baseUrl: string;
  model: string;
  apiKey: string | null;
  /** HTTP(S)_PROXY / NO_PROXY as the coordinator resolved them (DIRECT for the simulator); absent: direct. */
  proxy?: ProxySettings | null;
  ignoreEos: boolean;
  /** Server tokens per estimated token (pre-flight's calibration; 1 when not measured). */
  tokenScale: number;
  /** Requests of the whole run (null: by time), and the phase plan over global indices. */
  totalRequests: number | null;
  phases: PhaseBounds;
  shard: Shard;
  /** Print dataset warnings (only one shard should). */
  warn: boolean;
}

export interface JobOutcome {
  records: RequestRecord[];
  dispatchLagMs: Float64Array;
  interrupted: boolean;
  eventLoopDelayP99Ms: number | null;
  /**
   * Fraction of wall time this thread's event loop was busy (1 = saturated); with busy polling,
   * the share of time spent on work rather than spinning (see busy-poll.ts).
   */
  eventLoopUtilization: number;
  staleSocketRetries: number;
  /** Connections opened before t = 0. */
  preconnected: number;
}

export interface JobHooks {
  onRecord: RecordSink;
  onProgress?: ProgressListener;
  signal?: AbortSignal;
}

export interface PreparedJob {
  /** Runs the load with t = 0 at `originNs` (process.hrtime), shared by every shard. */
  run(originNs: string, hooks: JobHooks): Promise<JobOutcome>;
}

/** Builds everything slow (workload, tokenizer, schedule) before the clock starts. */
export async function prepareJob(job: LoadJob): Promise<PreparedJob> {
  const { load, shard } = job;
  // A worker thread has its own modules: a plugin kind is loaded here too.
  await loadEndpointPlugin(job.target.endpoint_type);
  const kind = workloadShapeOf(job.target);
  const full = await createWorkload(job.workload, {
    seed: load.seed,
    endpointKind: kind,
    batchSize: load.batch_size ?? 1,
    numPrompts: job.totalRequests ?? undefined,
    tokenScale: job.tokenScale,
    ...(job.warn ? {} : { warn: () => {} }),
  });
  const workload = shardWorkload(full, shard);
  const chat = kind === 'chat';
  const ramp = loadRamp(load);
  const userRamp = hasRamp(ramp) && load.concurrency !== null ? { ramp: { ramp, users: load.concurrency } } : {};
  const plan: LoadPlan = workload.nextSession
    ? {
        mode: 'sessions',
        users: load.concurrency === null ? null : shardShare(shard, load.concurrency),
        arrivals: load.concurrency === null ? shardIterator(sendTimes(load, full.timed), shard) : null,
        nextSession: workload.nextSession.bind(workload),
        substituteReplies: chat,
        keepText: job.keepText,
        ...userRamp,
      }
    : load.concurrency !== null
      ? { mode: 'closed', concurrency: shardShare(shard, load.concurrency), ...userRamp }
      : {
          mode: 'open',
          arrivals: shardIterator(sendTimes(load, full.timed), shard),
          maxConcurrency: load.max_concurrency === null ? null : Math.max(1, shardShare(shard, load.max_concurrency)),
        };
  // Sessions read each reply to put it into the next turn's history.
  const keepText = job.keepText || (plan.mode === 'sessions' && plan.substituteReplies);
  // Output text is re-tokenized (when the server sends no usage) only with a real tokenizer; the
  // tokenizer-free estimate is no better than counting content chunks, and costs the text.
  const countTokens = job.workload.tokenizer ? full.countTokens?.bind(full) : undefined;
  // The client exists before t = 0 so its connections can be opened first; it is put on the
  // run's clock when the run starts.
  const target = new HttpTarget(
    // A plugin whose buildBody throws is told in every thread that meets it (once per thread).
    { ...targetConfig(job.target, { baseUrl: job.baseUrl, apiKey: job.apiKey, ignoreEos: job.ignoreEos, keepText, countTokens, proxy: job.proxy ?? null }), model: job.model, warn: defaultWarn },
    () => 0,
  );
  const preconnected = await target.preconnect(shardShare(shard, preconnectCount(load, job.totalRequests)));
  // The open loop's and --busy-poll's waits spin a calibrated loop; calibrating takes a few ms,
  // which must not land on the first request.
  calibrateSpin();
  return {
    run: (originNs, hooks) => {
      const clock = createRunClock(originNs);
      target.useClock(clock);
      return runPrepared(job, hooks, { workload, plan, target, clock, preconnected });
    },
  };
}

/** Automatic preconnect ceiling when no concurrency cap says how many connections a run needs. */
const PRECONNECT_AUTO_MAX = 256;

/**
 * Connections to open before t = 0 (whole run): --preconnect, else the concurrency cap
 * (--concurrency, --max-concurrency), else about one second of open-loop arrivals, at most 256;
 * never more than the run has requests (a connection no request uses costs a handshake for nothing).
 */
export function preconnectCount(load: LoadSpec, totalRequests: number | null): number {
  const cap = load.concurrency ?? load.max_concurrency;
  const wanted =
    load.preconnect ?? cap ?? Math.min(PRECONNECT_AUTO_MAX, load.request_rate === Infinity ? (totalRequests ?? PRECONNECT_AUTO_MAX) : Math.ceil(load.request_rate));
  return totalRequests === null ? wanted : Math.min(wanted, totalRequests);
}

async function runPrepared(
  job: LoadJob,
  hooks: JobHooks,
  built: { workload: Workload; plan: LoadPlan; target: HttpTarget; clock: Clock; preconnected: number },
): Promise<JobOutcome> {
  const { load, shard } = job;
  const { workload, plan, target, clock, preconnected } = built;
  // A shard with no users (more workers than --concurrency) has nothing to send.
  if ((plan.mode === 'closed' && plan.concurrency === 0) || (plan.mode === 'sessions' && plan.users === 0)) {
    target.close();
    return { records: [], dispatchLagMs: new Float64Array(0), interrupted: false, eventLoopDelayP99Ms: null, eventLoopUtilization: 0, staleSocketRetries: 0, preconnected: 0 };
  }
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const elu0 = perf.eventLoopUtilization();
  const spin = load.busy_poll ? new BusyPoll().start() : null;
  try {
    const out = await runLoad({
      plan,
      phases: job.phases,
      shard,
      totalRequests: job.totalRequests === null ? null : shardCount(shard, job.totalRequests),
      durationMs: load.duration_ms,
      graceMs: load.grace_ms,
      workload,
      sender: target,
      clock,
      onRecord: hooks.onRecord,
      keepRecords: false,
      ...(job.target.retries > 0 ? { retry: { retries: job.target.retries, ...DEFAULT_RETRY_BACKOFF } } : {}),
      ...(hooks.onProgress ? { onProgress: hooks.onProgress } : {}),
      ...(hooks.signal ? { signal: hooks.signal } : {}),
    });
    loopDelay.disable();
    const workShare = spin?.stop();
    return {
      ...out,
      eventLoopDelayP99Ms: loopDelay.count > 0 ? loopDelay.percentile(99) / 1e6 : null,
      eventLoopUtilization: workShare ?? perf.eventLoopUtilization(elu0).utilization,
      staleSocketRetries: target.staleSocketRetries,
      preconnected,
    };
  } finally {
    spin?.stop();
    target.close();
  }
}
