/**
 * Closed loop: N virtual users, each sending its next request when the previous one
 * completes. There is no schedule of its own: each request is due when it is sent.
 * With a ramp, user k of the whole run (its global index, so worker threads keep the run's
 * profile) starts and stops at the times load/ramp.ts gives.
 */
import { userWindow, type Ramp } from '../../load/ramp.js';
import type { Workload } from '../../workload/types.js';
import type { LoopContext } from '../loop-context.js';
import { globalIndex } from '../shard.js';

export interface ClosedLoopPlan {
  mode: 'closed';
  /** This shard's users. */
  concurrency: number;
  /** Ramps over the run's users (`users`: all shards together). */
  ramp?: { ramp: Ramp; users: number };
}

export async function runClosedLoop(ctx: LoopContext, plan: ClosedLoopPlan, workload: Workload): Promise<void> {
  let i = 0;
  const user = async (j: number): Promise<void> => {
    const w = plan.ramp ? userWindow(plan.ramp.ramp, globalIndex(ctx.shard, j), plan.ramp.users) : null;
    if (w !== null && w.start_ms > ctx.clock()) await ctx.sleepUntil(w.start_ms);
    while (!ctx.stopped && !ctx.countReached(i) && !ctx.timeUp() && !(w !== null && ctx.clock() >= w.stop_ms)) {
      const rec = ctx.newRecord(globalIndex(ctx.shard, i++), ctx.clock());
      await ctx.launch(rec, workload.next());
    }
  };
  const users = Promise.all(Array.from({ length: plan.concurrency }, (_, j) => user(j)));
  if (ctx.durationMs === null) {
    await users;
    return;
  }
  // By time: stop at the end of the duration even while users wait for responses.
  await Promise.race([users, ctx.sleep(ctx.durationMs - ctx.clock())]);
}
