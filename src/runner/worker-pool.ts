/**
 * Runs a load across worker threads: one shard each, one shared clock and schedule. The
 * calling thread only coordinates: it forwards Ctrl-C, merges progress, and receives the
 * records as the workers finish them (in completion batches, not index order).
 */
import { Worker } from 'node:worker_threads';
import { UserError } from '../errors/user-error.js';
import type { RequestRecord } from '../record/record.js';
import { prepareJob, type JobHooks, type JobOutcome, type LoadJob } from './load-job.js';
import { hrtimeNowNs } from './run-clock.js';
import { mergeSnapshots, type ProgressSnapshot } from './progress.js';
import { onAbort } from '../util/on-abort.js';
import type { AnswerCheck } from './loop-context.js';

/** The merged outcome of every shard: records of all, the worst thread's health. */
export type PoolOutcome = JobOutcome;

/**
 * A small young generation for the load workers. A young-generation collection stops the thread
 * for as long as copying the live young objects takes, and in a load worker those are the
 * requests begun since the last one. V8's default lets the young generation grow much larger, so
 * at a high request rate a collection came rarely and copied hundreds of requests: pauses of
 * milliseconds, which land in the measured TTFT and ITL. A small one collects more often and
 * copies a few dozen, which lowered the client-added error's tail (bench/cli-timing.ts; the
 * figures are in docs/performance.md §3).
 */
const WORKER_YOUNG_GENERATION_MB = 6;

/**
 * Starts the worker script next to this module. Under a TypeScript runner (the tests run
 * src/ directly) the .ts entry is loaded through tsx's loader, registered inside the worker.
 */
function startWorker(workerData: LoadJob): Worker {
  const resourceLimits = { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB };
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./load-worker.js', import.meta.url), { workerData, resourceLimits });
  const entry = new URL('./load-worker.ts', import.meta.url).href;
  const boot = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { eval: true, workerData, resourceLimits });
}

function concat(arrays: Float64Array[]): Float64Array {
  const out = new Float64Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) {
    out.set(a, at);
    at += a.length;
  }
  return out;
}

function merge(outcomes: JobOutcome[], records: RequestRecord[]): PoolOutcome {
  let delay: number | null = null;
  for (const o of outcomes) if (o.eventLoopDelayP99Ms !== null) delay = Math.max(delay ?? 0, o.eventLoopDelayP99Ms);
  return {
    records,
    dispatchLagMs: concat(outcomes.map((o) => o.dispatchLagMs)),
    interrupted: outcomes.some((o) => o.interrupted),
    eventLoopDelayP99Ms: delay,
    eventLoopUtilization: Math.max(0, ...outcomes.map((o) => o.eventLoopUtilization)),
    staleSocketRetries: outcomes.reduce((n, o) => n + o.staleSocketRetries, 0),
    preconnected: outcomes.reduce((n, o) => n + o.preconnected, 0),
  };
}

export interface PoolHooks extends JobHooks {
  /** Called once every shard is ready, with the run's t = 0 (process.hrtime, ns). */
  onStart?: (originNs: string) => void;
  /**
   * Once every shard is ready: resolves with t = 0 (process.hrtime, ns, not in the future) when
   * the run may start — a distributed worker waits here for the coordinator's start time.
   * Default: now.
   */
  startAt?: () => Promise<string>;
}

/**
 * `workers` = 0 runs the load in this thread; N ≥ 1 runs it in N worker threads. Each
 * shard first builds its workload; the clock starts when all are ready.
 */
export async function runPool(jobFor: (offset: number, step: number) => LoadJob, workers: number, hooks: PoolHooks): Promise<PoolOutcome> {
  if (workers === 0) {
    const records: RequestRecord[] = [];
    const prepared = await prepareJob(jobFor(0, 1));
    const originNs = hooks.startAt ? await hooks.startAt() : hrtimeNowNs();
    hooks.onStart?.(originNs);
    const out = await prepared.run(originNs, { ...hooks, onRecord: (r, check) => (records.push(r), hooks.onRecord(r, check)) });
    return merge([out], records);
  }
  const records: RequestRecord[] = [];
  const latest: Array<ProgressSnapshot | null> = Array.from({ length: workers }, () => null);
  const threads = Array.from({ length: workers }, (_, w) => startWorker(jobFor(w, workers)));
  // A cancel posted before a worker's start is kept by the worker: it then sends nothing.
  const detach = onAbort(hooks.signal, () => threads.forEach((t) => t.postMessage({ type: 'cancel' })));

  const progressTimer = hooks.onProgress
    ? setInterval(() => {
        const merged = mergeSnapshots(latest.filter((p): p is ProgressSnapshot => p !== null));
        if (merged) hooks.onProgress!(merged);
      }, 1000)
    : null;

  let ready = 0;
  const begin = (originNs: string) => {
    hooks.onStart?.(originNs);
    for (const t of threads) t.postMessage({ type: 'start', originNs });
  };
  let startFailed: (err: unknown) => void = () => {};
  const startFailure = new Promise<never>((_, reject) => (startFailed = reject));
  startFailure.catch(() => {});
  const onReady = () => {
    if (++ready < workers) return;
    if (hooks.startAt) hooks.startAt().then(begin, (err: unknown) => startFailed(err));
    else begin(hrtimeNowNs());
  };

  try {
    const outcomes = await Promise.race([
      startFailure,
      Promise.all(
        threads.map(
          (t, w) =>
            new Promise<JobOutcome>((resolve, reject) => {
              let settled = false;
              t.on('message', (msg: { type: string; records?: RequestRecord[]; checks?: Array<AnswerCheck | null>; p?: ProgressSnapshot; outcome?: JobOutcome; message?: string; user?: boolean }) => {
                if (msg.type === 'ready') onReady();
                else if (msg.type === 'records') {
                  const checks = msg.checks ?? [];
                  msg.records!.forEach((r, i) => {
                    records.push(r);
                    hooks.onRecord(r, checks[i] ?? undefined);
                  });
                } else if (msg.type === 'progress') latest[w] = msg.p!;
                else if (msg.type === 'done') {
                  settled = true;
                  resolve(msg.outcome!);
                } else if (msg.type === 'failed') {
                  settled = true;
                  reject(msg.user ? new UserError(msg.message!) : new Error(`load worker ${w}: ${msg.message}`));
                }
              });
              t.on('error', (err) => {
                if (!settled) reject(new Error(`load worker ${w} crashed: ${err.message}`));
              });
              t.on('exit', (code) => {
                if (!settled) reject(new Error(`load worker ${w} exited with code ${code} before finishing`));
              });
            }),
        ),
      ),
    ]);
    return merge(outcomes, records);
  } finally {
    if (progressTimer) clearInterval(progressTimer);
    detach();
    await Promise.all(threads.map((t) => t.terminate()));
  }
}
