/**
 * Open loop: requests go out at their scheduled times whatever the server does; responses
 * are never waited for. `--max-concurrency` holds requests back in a FIFO when too many are
 * in flight; they go out late, and the lag stays visible as sent_ms − scheduled_ms.
 */
import type { RequestRecord } from '../../record/record.js';
import type { Workload } from '../../workload/types.js';
import type { AnswerCheck, LoopContext } from '../loop-context.js';
import { globalIndex } from '../shard.js';

export interface OpenLoopPlan {
  mode: 'open';
  /** Send offsets in ms from the start, non-decreasing. */
  arrivals: Iterator<number>;
  maxConcurrency: number | null;
}

export async function runOpenLoop(ctx: LoopContext, plan: OpenLoopPlan, workload: Workload): Promise<void> {
  const queue: Array<{ rec: RequestRecord; prepared: unknown; check: AnswerCheck | undefined }> = [];
  const max = plan.maxConcurrency ?? Infinity;
  const stats = ctx.stats;
  const drainQueue = (): void => {
    while (queue.length > 0 && stats.inflight < max && !ctx.stopped) {
      const next = queue.shift()!;
      stats.queued = queue.length;
      void ctx.launchPrepared(next.rec, next.prepared, undefined, next.check).then(drainQueue);
    }
  };
  let i = 0;
  let next = plan.arrivals.next();
  // The next request is built (prompt, JSON body) before its due time, so sending it costs only the write.
  let item = next.done ? null : workload.next();
  let prepared = item === null ? null : ctx.sender.prepare(item);
  while (!ctx.stopped && !next.done && !ctx.countReached(i) && !ctx.timeUp(next.value)) {
    const due = next.value;
    if (due > ctx.clock()) {
      await ctx.sleepUntil(due);
      continue;
    }
    ctx.dispatchLag.push(ctx.clock() - due);
    const rec = ctx.newRecord(globalIndex(ctx.shard, i++), due);
    const check = item?.check;
    if (stats.inflight < max) void ctx.launchPrepared(rec, prepared, undefined, check).then(drainQueue);
    else {
      queue.push({ rec, prepared, check });
      stats.queued = queue.length;
    }
    next = plan.arrivals.next();
    if (!next.done && !ctx.countReached(i)) {
      item = workload.next();
      prepared = ctx.sender.prepare(item);
    }
    // Yield to I/O between bursts so responses are timestamped while we dispatch.
    if ((i & 63) === 0) await new Promise<void>((r) => setImmediate(r));
  }
  // Count-based runs wait for the queue to drain; duration runs only until the end.
  while (!ctx.stopped && queue.length > 0 && !ctx.timeUp()) {
    await Promise.race([ctx.nextCompletion(), ctx.sleep(50)]);
  }
  for (const q of queue.splice(0)) ctx.completeUnsent(q.rec, 'run ended while waiting for a --max-concurrency slot');
  stats.queued = 0;
}
