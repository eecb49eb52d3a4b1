/**
 * A distributed run's split: worker process `node` of N keeps the requests (or closed-loop users,
 * or sessions) whose run-wide index k satisfies k mod N = node, like k6's execution segments.
 * Inside a process, its T load threads split that share again by the same rule, which is the
 * shard (offset node + N·t, step N·T) of the whole run — so every request keeps the index, prompt
 * and scheduled time the single-process run gives it, and the union over nodes is that run.
 */
import { shardCount, type Shard } from '../runner/shard.js';

export interface Node {
  /** 0 ≤ index < count. */
  index: number;
  /** Worker processes in the run. */
  count: number;
}

/** The run-wide shard of thread `thread` of `threads` inside worker process `node`. */
export function nodeShard(node: Node, thread: number, threads: number): Shard {
  return { offset: node.index + node.count * thread, step: node.count * threads };
}

/** Requests a worker process sends in a run of `total` requests (null: the run stops by time). */
export function nodeRequestCount(node: Node, total: number | null): number | null {
  return total === null ? null : shardCount({ offset: node.index, step: node.count }, total);
}

/** Request ids of a worker process's share, in order. */
export function nodeRequestIds(node: Node, total: number): number[] {
  const n = nodeRequestCount(node, total)!;
  return Array.from({ length: n }, (_, k) => node.index + k * node.count);
}

/** The worker process that owns run-wide request (or user, or session) index `id`. */
export function nodeOf(id: number, count: number): number {
  return id % count;
}
