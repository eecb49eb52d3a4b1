/**
 * Open loop: requests go out at their scheduled times whatever the server does; responses
 * are never waited for. `--max-concurrency` holds requests back in a FIFO when too many are
 * in flight; they go out late, and the lag stays visible as sent_ms − scheduled_ms.
 */
import type { RequestRecord } from '../../record/record.js';
import type { WorkItem, Workload } from '../../workload/types.js';
import type { LoopContext } from '../loop-context.js';
import { globalIndex } from '../shard.js';

export interface OpenLoopPlan {
  mode: 'open';
  /** Send offsets in ms from the start, non-decreasing. */
  arrivals: Iterator<number>;
  maxConcurrency: number | null;
}

export async function runOpenLoop(ctx: LoopContext, plan: OpenLoopPlan, workload: Workload): Promise<void> {
  const queue: Array<{ rec: RequestRecord; item: WorkItem }> = [];
  const max = plan.maxConcurrency ?? Infinity;
  const stats = ctx.stats;
  const drainQueue = (): void => {
    while (queue.length > 0 && stats.inflight < max && !ctx.stopped) {
      const next = queue.shift()!;
      stats.queued = queue.length;
      void ctx.launch(next.rec, next.item).then(drainQueue);
    }
  };
  let i = 0;
  let next = plan.arrivals.next();
  while (!ctx.stopped && !next.done && !ctx.countReached(i) && !ctx.timeUp(next.value)) {
    const due = next.value;
    const now = ctx.clock();
    if (due > now) {
      // A timer can fire up to ~1 ms late; that lateness is measured as dispatch lag.
      await ctx.sleep(due - now);
      continue;
    }
    ctx.dispatchLag.push(now - due);
    const rec = ctx.newRecord(globalIndex(ctx.shard, i++), due);
    const item = workload.next();
    if (stats.inflight < max) void ctx.launch(rec, item).then(drainQueue);
    else {
      queue.push({ rec, item });
      stats.queued = queue.length;
    }
    next = plan.arrivals.next();
    // Yield to I/O between bursts so responses are timestamped while we dispatch.
    if ((i & 63) === 0) await new Promise<void>((r) => setImmediate(r));
  }
  // Count-based runs wait for the queue to drain; duration runs only until the end.
  while (!ctx.stopped && queue.length > 0 && !ctx.timeUp()) {
    await Promise.race([...ctx.pending, ctx.sleep(50)]);
  }
  for (const q of queue.splice(0)) ctx.completeUnsent(q.rec, 'run ended while waiting for a --max-concurrency slot');
  stats.queued = 0;
}
