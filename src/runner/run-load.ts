/**
 * The dispatch loop: runs one executor (open loop, closed loop or sessions), then ends the
 * run — a grace period for requests still in flight after --duration, cancellation after
 * it or on Ctrl-C. It never hides lateness: every record keeps the time the load model
 * wanted (`scheduled_ms`) and the time it was sent (`sent_ms`).
 */
import type { PhaseBounds } from '../load/phases.js';
import type { Clock, RequestRecord } from '../record/record.js';
import type { Workload } from '../workload/types.js';
import { runClosedLoop, type ClosedLoopPlan } from './executors/closed-loop.js';
import { runOpenLoop, type OpenLoopPlan } from './executors/open-loop.js';
import { runSessions, type SessionPlan } from './executors/sessions.js';
import { LoopContext, type RecordSink, type Sender } from './loop-context.js';
import type { ProgressListener } from './progress.js';
import { WHOLE, type Shard } from './shard.js';
import type { RetryPolicy } from './retry-policy.js';
import { busyPolling } from './busy-poll.js';
import { onAbort } from '../util/on-abort.js';

export type { AnswerCheck, RecordSink, Sender } from './loop-context.js';
export type LoadPlan = OpenLoopPlan | ClosedLoopPlan | SessionPlan;

export interface RunnerOptions {
  plan: LoadPlan;
  phases: PhaseBounds;
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
  clock: Clock;
  onRecord: RecordSink;
  onProgress?: ProgressListener;
  /** Aborting it ends the run early (Ctrl-C): in-flight requests are cancelled. */
  signal?: AbortSignal;
  /** Return the records in the outcome (default true); false when onRecord already keeps them. */
  keepRecords?: boolean;
  /** --retries (default: none). */
  retry?: RetryPolicy;
}

export interface RunOutcome {
  /** Every finished record, unless keepRecords was false. */
  records: RequestRecord[];
  /** Dispatcher lateness: when the loop got to each request minus when it was due (open loop). */
  dispatchLagMs: Float64Array;
  interrupted: boolean;
}

export async function runLoad(opts: RunnerOptions): Promise<RunOutcome> {
  const { plan, clock, sender } = opts;
  const dueWhenSent = plan.mode === 'closed' || (plan.mode === 'sessions' && plan.users !== null);
  const ctx = new LoopContext(clock, sender, opts.phases, opts.shard ?? WHOLE, opts.totalRequests, opts.durationMs, opts.onRecord, dueWhenSent, opts.keepRecords ?? true, opts.retry ?? null);
  let interrupted = false;
  const detach = onAbort(opts.signal, () => {
    interrupted = true;
    ctx.stop();
    ctx.cancelRetries();
    sender.cancelAll();
  });
  // Health since the last snapshot, read once a second from what the loop records anyway.
  let lagSeen = 0;
  let elu = performance.eventLoopUtilization();
  const health = () => {
    const lag = ctx.dispatchLag;
    let lagMax: number | null = null;
    for (let i = lagSeen; i < lag.length; i++) lagMax = Math.max(lagMax ?? -Infinity, lag.values[i]!);
    lagSeen = lag.length;
    const now = performance.eventLoopUtilization();
    const busy = busyPolling() ? null : performance.eventLoopUtilization(now, elu).utilization;
    elu = now;
    return { lag_max_ms: lagMax, busy };
  };
  const progressTimer = opts.onProgress
    ? setInterval(() => {
        ctx.stats.elapsed_ms = clock();
        opts.onProgress!({ ...ctx.stats, ...health() });
      }, 1000)
    : null;

  if (plan.mode === 'open') await runOpenLoop(ctx, plan, opts.workload);
  else if (plan.mode === 'closed') await runClosedLoop(ctx, plan, opts.workload);
  else await runSessions(ctx, plan);
  ctx.stop();

  if (ctx.pending.size > 0 && !interrupted) {
    // Duration runs give in-flight requests a grace period; count runs wait for all (each bounded by its timeout).
    if (opts.durationMs === null) await ctx.drained();
    else {
      let graceTimer: NodeJS.Timeout | undefined;
      await Promise.race([ctx.drained(), new Promise<void>((r) => (graceTimer = setTimeout(r, opts.graceMs)))]);
      clearTimeout(graceTimer);
    }
    if (ctx.pending.size > 0) {
      ctx.cancelRetries();
      sender.cancelAll();
    }
  }
  await Promise.all(ctx.pending);
  if (progressTimer) clearInterval(progressTimer);
  detach();
  ctx.stats.elapsed_ms = clock();
  opts.onProgress?.({ ...ctx.stats });
  return { records: ctx.records, dispatchLagMs: ctx.dispatchLag.view(), interrupted };
}
