/**
 * The dispatch loop: turns a schedule (open loop) or a concurrency level (closed loop)
 * into requests, applies --max-concurrency, assigns phases, and hands each finished
 * record to the sink. It never hides lateness: every record keeps the time the load
 * model wanted (`scheduled_ms`) and the time it was sent (`sent_ms`).
 */
import { emptyRecord, type RequestRecord } from '../record/record.js';
import { phaseOf, type PhasePlan } from '../load/phases.js';
import type { Workload, WorkItem } from '../workload/types.js';
import { GrowableF64 } from './growable.js';
import { globalIndex, WHOLE, type Shard } from './shard.js';
import type { ProgressListener, ProgressSnapshot } from './progress.js';

export interface Sender {
  send(rec: RequestRecord, item: WorkItem): Promise<RequestRecord>;
  cancelAll(): void;
}

export type LoadPlan =
  | {
      mode: 'open';
      /** Send offsets in ms from the start, non-decreasing; with `items`, one per item. */
      arrivals: Iterator<number>;
      maxConcurrency: number | null;
    }
  | { mode: 'closed'; concurrency: number };

export interface RunnerOptions {
  plan: LoadPlan;
  phases: PhasePlan;
  /** Which requests of the whole run this loop sends (worker threads); default: all. */
  shard?: Shard;
  /** Stop after this many requests of this shard (null: by time only). */
  totalRequests: number | null;
  /** Stop sending at this offset (null: by count only). */
  durationMs: number | null;
  /** After the duration, in-flight requests get this long before they are cancelled. */
  graceMs: number;
  workload: Workload;
  sender: Sender;
  clock: () => number;
  onRecord: (rec: RequestRecord) => void;
  onProgress?: ProgressListener;
  /** Aborting it ends the run early (Ctrl-C): in-flight requests are cancelled. */
  signal?: AbortSignal;
}

export interface RunOutcome {
  records: RequestRecord[];
  /** Dispatcher lateness: when the loop got to each request minus when it was due (open loop). */
  dispatchLagMs: Float64Array;
  interrupted: boolean;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));

export async function runLoad(opts: RunnerOptions): Promise<RunOutcome> {
  const { clock, plan, workload, sender } = opts;
  const records: RequestRecord[] = [];
  const dispatchLag = new GrowableF64(1024);
  const stats: ProgressSnapshot = {
    elapsed_ms: 0,
    total: opts.totalRequests,
    duration_ms: opts.durationMs,
    sent: 0,
    done: 0,
    ok: 0,
    failed: 0,
    inflight: 0,
    queued: 0,
    output_tokens: 0,
  };
  const pending = new Set<Promise<unknown>>();
  const closedLoop = plan.mode === 'closed';
  let stopped = false;
  let interrupted = false;
  let wake: (() => void) | null = null;
  const onAbort = () => {
    interrupted = stopped = true;
    sender.cancelAll();
    wake?.();
  };
  opts.signal?.addEventListener('abort', onAbort, { once: true });

  const progressTimer = opts.onProgress
    ? setInterval(() => {
        stats.elapsed_ms = clock();
        opts.onProgress!({ ...stats });
      }, 1000)
    : null;

  const complete = (rec: RequestRecord) => {
    stats.inflight--;
    stats.done++;
    if (rec.status === 'ok') stats.ok++;
    else stats.failed++;
    stats.output_tokens += rec.output_tokens;
    records.push(rec);
    opts.onRecord(rec);
  };

  const launch = (rec: RequestRecord, item: WorkItem): Promise<RequestRecord> => {
    stats.sent++;
    stats.inflight++;
    const p = sender.send(rec, item).then((r) => {
      // Closed loop: the load model has no schedule of its own; each request is due when sent.
      if (closedLoop) r.scheduled_ms = r.sent_ms;
      complete(r);
      pending.delete(p);
      return r;
    });
    pending.add(p);
    return p;
  };

  const shard = opts.shard ?? WHOLE;
  // Records carry the run-wide index, so shards merge into the records one loop would make.
  const newRecord = (local: number, scheduledMs: number): RequestRecord => {
    const index = globalIndex(shard, local);
    const rec = emptyRecord(index, scheduledMs);
    rec.phase = phaseOf(opts.phases, index, scheduledMs);
    rec.worker = shard.offset;
    return rec;
  };

  const countReached = (i: number) => opts.totalRequests !== null && i >= opts.totalRequests;
  const timeUp = (t: number) => opts.durationMs !== null && t >= opts.durationMs;

  if (plan.mode === 'open') {
    // Requests held back by --max-concurrency, FIFO; they are sent late and the lag shows.
    const queue: Array<{ rec: RequestRecord; item: WorkItem }> = [];
    const max = plan.maxConcurrency ?? Infinity;
    const drainQueue = () => {
      while (queue.length > 0 && stats.inflight < max && !stopped) {
        const next = queue.shift()!;
        stats.queued = queue.length;
        void launch(next.rec, next.item).then(drainQueue);
      }
    };
    let i = 0;
    let next = plan.arrivals.next();
    while (!stopped && !next.done && !countReached(i) && !timeUp(next.value)) {
      const due = next.value;
      const now = clock();
      if (due > now) {
        // Sleep until due; a timer can fire up to ~1 ms late, and that lateness is measured below.
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, due - now);
        });
        wake = null;
        continue;
      }
      dispatchLag.push(now - due);
      const rec = newRecord(i++, due);
      const item = workload.next();
      if (stats.inflight < max) void launch(rec, item).then(drainQueue);
      else {
        queue.push({ rec, item });
        stats.queued = queue.length;
      }
      next = plan.arrivals.next();
      // Yield to I/O between bursts so responses are timestamped while we dispatch.
      if ((i & 63) === 0) await new Promise<void>((r) => setImmediate(r));
    }
    // Wait for the queue to drain (count-based runs) or for the end of the duration.
    while (!stopped && queue.length > 0 && (opts.durationMs === null || clock() < opts.durationMs)) {
      await Promise.race([...pending, sleep(50)]);
    }
    for (const q of queue.splice(0)) {
      // Never sent: recorded as cancelled so nothing scheduled disappears from the record.
      q.rec.sent_ms = q.rec.end_ms = clock();
      q.rec.status = 'cancelled';
      q.rec.error_class = 'cancelled';
      q.rec.error_message = 'run ended while waiting for a --max-concurrency slot';
      stats.inflight++;
      complete(q.rec);
    }
    stats.queued = 0;
  } else {
    let i = 0;
    const worker = async () => {
      while (!stopped && !countReached(i) && !timeUp(clock())) {
        const rec = newRecord(i++, clock());
        const item = workload.next();
        await launch(rec, item);
      }
    };
    const workers = Array.from({ length: plan.concurrency }, worker);
    if (opts.durationMs !== null) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(workers), new Promise<void>((r) => (timer = setTimeout(r, opts.durationMs! - clock())))]);
      clearTimeout(timer);
      stopped = true;
    }
    // Count-based: the workers finish by themselves; duration-based: the grace period below.
    if (opts.durationMs === null) await Promise.all(workers);
  }

  stopped = true;
  if (pending.size > 0 && !interrupted) {
    // Duration runs give in-flight requests a grace period; count runs wait for all (each bounded by its timeout).
    const graceEnd = opts.durationMs !== null ? clock() + opts.graceMs : Infinity;
    while (pending.size > 0 && clock() < graceEnd) {
      await Promise.race([...pending, sleep(Math.min(250, graceEnd - clock()))]);
    }
    if (pending.size > 0) sender.cancelAll();
  }
  await Promise.all(pending);
  if (progressTimer) clearInterval(progressTimer);
  opts.signal?.removeEventListener('abort', onAbort);
  stats.elapsed_ms = clock();
  opts.onProgress?.({ ...stats });
  return { records, dispatchLagMs: dispatchLag.toArray(), interrupted };
}
