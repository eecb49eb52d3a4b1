/**
 * Closed loop: N virtual users, each sending its next request when the previous one
 * completes. There is no schedule of its own: each request is due when it is sent.
 */
import type { Workload } from '../../workload/types.js';
import type { LoopContext } from '../loop-context.js';
import { globalIndex } from '../shard.js';

export interface ClosedLoopPlan {
  mode: 'closed';
  concurrency: number;
}

export async function runClosedLoop(ctx: LoopContext, plan: ClosedLoopPlan, workload: Workload): Promise<void> {
  let i = 0;
  const user = async (): Promise<void> => {
    while (!ctx.stopped && !ctx.countReached(i) && !ctx.timeUp()) {
      const rec = ctx.newRecord(globalIndex(ctx.shard, i++), ctx.clock());
      await ctx.launch(rec, workload.next());
    }
  };
  const users = Promise.all(Array.from({ length: plan.concurrency }, user));
  if (ctx.durationMs === null) {
    await users;
    return;
  }
  // By time: stop at the end of the duration even while users wait for responses.
  await Promise.race([users, ctx.sleep(ctx.durationMs - ctx.clock())]);
}
