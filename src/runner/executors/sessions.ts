/**
 * Multi-turn sessions: each conversation sends its turns one after another, turn k+1 a
 * think time after turn k completed, carrying the previous turns. Conversations come from
 * N concurrent users (`--concurrency`: a user starts a new conversation when one ends) or
 * arrive at the open-loop schedule (`--request-rate` = conversations per second).
 *
 * With a chat workload the server's real reply replaces the workload's stand-in reply in the
 * history, so later turns carry exactly what a user would resend. A failed turn ends its
 * conversation: nobody continues a chat whose last answer never came.
 */
import { userWindow, type Ramp } from '../../load/ramp.js';
import type { ChatMessage, Session, WorkItem } from '../../workload/types.js';
import type { LoopContext } from '../loop-context.js';
import { globalIndex } from '../shard.js';

export interface SessionPlan {
  mode: 'sessions';
  /** Closed loop: concurrent users (this shard's). */
  users: number | null;
  /** Closed loop: ramps over the run's users (`users`: all shards together); see load/ramp.ts. */
  ramp?: { ramp: Ramp; users: number };
  /** Open loop: conversation start times (used when users is null). */
  arrivals: Iterator<number> | null;
  nextSession: () => Session;
  /** Put the server's reply into the next turn's history (chat). */
  substituteReplies: boolean;
  /** Keep reply text in the records (--keep-text); otherwise it is dropped once used. */
  keepText: boolean;
}

/** The turn with its last assistant message replaced by the server's actual reply. */
export function withReply(item: WorkItem, reply: string): WorkItem {
  const m = item.messages;
  if (!m || m.length < 2 || m[m.length - 2]!.role !== 'assistant') return item;
  const messages: ChatMessage[] = m.slice();
  messages[m.length - 2] = { role: 'assistant', content: reply };
  return { ...item, messages };
}

export async function runSessions(ctx: LoopContext, plan: SessionPlan): Promise<void> {
  let i = 0;
  /**
   * Turns that conversations in progress will still send. A conversation reserves its turns when
   * it starts (up to what --num-prompts leaves), so a run by count plays whole conversations
   * instead of starting one conversation per request and leaving no budget for any later turn.
   */
  let reserved = 0;
  const full = (): boolean => ctx.countReached(i + reserved);

  const converse = async (session: Session, firstDue: number): Promise<void> => {
    const budget = ctx.totalRequests === null ? session.turns.length : Math.max(0, Math.min(session.turns.length, ctx.totalRequests - i - reserved));
    reserved += budget;
    let unsent = budget;
    let reply: string | null = null;
    let due = firstDue;
    try {
      for (let t = 0; t < budget; t++) {
        let item = session.turns[t]!;
        if (t > 0) {
          const think = item.think_time_ms ?? 0;
          due = ctx.clock() + think;
          await ctx.sleep(think);
        }
        if (ctx.stopped || ctx.timeUp()) return;
        const index = globalIndex(ctx.shard, i++);
        unsent--;
        reserved--;
        if (plan.substituteReplies && reply !== null) item = withReply(item, reply);
        const rec = ctx.newRecord(index, due);
        const done = await ctx.launch(rec, item, (r) => {
          reply = r.output_text;
          // A checked turn's answer is evaluated later (docs/quality.md): its text stays.
          if (!plan.keepText && item.check === undefined) r.output_text = null;
        });
        if (done.status !== 'ok') return;
      }
    } finally {
      reserved -= unsent; // a conversation that ended early frees the turns it did not send
    }
  };

  if (plan.users !== null) {
    const user = async (j: number): Promise<void> => {
      const w = plan.ramp ? userWindow(plan.ramp.ramp, globalIndex(ctx.shard, j), plan.ramp.users) : null;
      if (w !== null && w.start_ms > ctx.clock()) await ctx.sleepUntil(w.start_ms);
      while (!ctx.stopped && !full() && !ctx.timeUp() && !(w !== null && ctx.clock() >= w.stop_ms)) await converse(plan.nextSession(), ctx.clock());
    };
    const users = Promise.all(Array.from({ length: plan.users }, (_, j) => user(j)));
    if (ctx.durationMs === null) await users;
    else await Promise.race([users, ctx.sleep(ctx.durationMs - ctx.clock())]);
    return;
  }

  const conversations = new Set<Promise<void>>();
  const arrivals = plan.arrivals!;
  for (let next = arrivals.next(); !next.done && !ctx.stopped && !full() && !ctx.timeUp(next.value); next = arrivals.next()) {
    const now = ctx.clock();
    if (next.value > now) await ctx.sleep(next.value - now);
    if (ctx.stopped) break;
    ctx.dispatchLag.push(ctx.clock() - next.value);
    const c: Promise<void> = converse(plan.nextSession(), next.value).finally(() => conversations.delete(c));
    conversations.add(c);
  }
  // Conversations already started run to their end (count runs) or to the end of the duration.
  if (ctx.durationMs === null) await Promise.all(conversations);
  else await Promise.race([Promise.all(conversations), ctx.sleep(ctx.durationMs - ctx.clock())]);
}
