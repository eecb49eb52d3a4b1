/**
 * Splitting one run across worker threads without changing what is sent or when.
 *
 * Every worker builds the same seeded schedule and workload and keeps the requests whose
 * global index i satisfies i mod step = offset. So N workers send exactly the requests — same
 * index, same prompt, same scheduled time — one worker would, and their records merge into
 * the same set. The price is that each worker generates (and discards) the others' prompts.
 */
import type { Session, Workload, WorkItem } from '../workload/types.js';

export interface Shard {
  /** This worker's position, 0 ≤ offset < step. */
  offset: number;
  /** Number of workers. */
  step: number;
}

export const WHOLE: Shard = { offset: 0, step: 1 };

/** Global index of this shard's `local`-th request. */
export function globalIndex(shard: Shard, local: number): number {
  return shard.offset + local * shard.step;
}

/** How many of `total` requests fall to this shard. */
export function shardCount(shard: Shard, total: number): number {
  return total <= shard.offset ? 0 : Math.ceil((total - shard.offset) / shard.step);
}

/** This shard's part of a level split as evenly as possible (e.g. concurrency 5 over 2 → 3, 2). */
export function shardShare(shard: Shard, level: number): number {
  return Math.floor(level / shard.step) + (shard.offset < level % shard.step ? 1 : 0);
}

/** Keeps every step-th value starting at offset. */
export function shardIterator<T>(inner: Iterator<T>, shard: Shard): Iterator<T> {
  if (shard.step === 1) return inner;
  let skip = shard.offset; // values to drop before the next one kept
  return {
    next(): IteratorResult<T> {
      for (let k = 0; k < skip; k++) {
        const dropped = inner.next();
        if (dropped.done) return dropped;
      }
      skip = shard.step - 1;
      return inner.next();
    },
  };
}

/** A workload whose next() returns this shard's items only (the others are generated and dropped). */
export function shardWorkload(inner: Workload, shard: Shard): Workload {
  if (shard.step === 1) return inner;
  const items = shardIterator<WorkItem>({ next: () => ({ done: false, value: inner.next() }) }, shard);
  const sessions = inner.nextSession ? shardIterator<Session>({ next: () => ({ done: false, value: inner.nextSession!() }) }, shard) : null;
  return {
    skipped: inner.skipped,
    describe: () => inner.describe(),
    next: () => items.next().value as WorkItem,
    ...(sessions ? { nextSession: () => sessions.next().value as Session } : {}),
    ...(inner.countTokens ? { countTokens: (t: string) => inner.countTokens!(t) } : {}),
  };
}
