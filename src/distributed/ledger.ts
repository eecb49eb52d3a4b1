/**
 * The coordinator's account of a distributed run, worker by worker: which records arrived (each
 * counted once, however often it is delivered), who finished, who was lost, and — for a run of
 * known size — which of a lost worker's requests never came.
 */
import type { RequestRecord } from '../record/record.js';
import { nodeRequestIds } from './partition.js';
import { recordKey, type Beat, type Done } from './protocol.js';

export type NodeStatus = 'running' | 'done' | 'lost';

export interface NodeAccount {
  node: number;
  status: NodeStatus;
  /** Distinct records received (every attempt). */
  received: number;
  /** Why it was declared lost. */
  lostReason: string | null;
  done: Done | null;
  lastBeat: Beat | null;
  /** Dispatch lateness chunks received, by chunk index. */
  lag: Map<number, number[]>;
}

/** A worker whose share is not all in: what the partial-result verdict names. */
export interface IncompleteNode {
  node: number;
  reason: string;
  /** Requests of its share with no record (null when the run stops by time: the share's size is unknown). */
  missing: number | null;
  /** Their ids, ascending (empty when unknown). */
  missing_ids: number[];
  /** Records received from it. */
  received: number;
}

export class RunLedger {
  /** The accounts of the workers taking part, in the order of their share (slot). */
  readonly nodes: NodeAccount[];
  private readonly seen = new Set<string>();
  /** Request ids received per slot (any attempt). */
  private readonly ids: Array<Set<number>>;
  private readonly slots = new Map<number, number>();

  constructor(
    /** Workers 0 … N−1, or the worker indices taking part (a sweep stage after a worker was lost): share k goes to the k-th. */
    workers: number | readonly number[],
    /** Requests of the whole run; null when it stops by time. */
    private readonly total: number | null,
  ) {
    const list = typeof workers === 'number' ? Array.from({ length: workers }, (_, i) => i) : [...workers];
    list.forEach((node, slot) => this.slots.set(node, slot));
    this.nodes = list.map((node) => ({ node, status: 'running' as NodeStatus, received: 0, lostReason: null, done: null, lastBeat: null, lag: new Map() }));
    this.ids = list.map(() => new Set<number>());
  }

  /** Workers sharing the load. */
  get workers(): number {
    return this.nodes.length;
  }

  /** The account of worker `node`; undefined when it takes no part. */
  account(node: number): NodeAccount | undefined {
    const slot = this.slots.get(node);
    return slot === undefined ? undefined : this.nodes[slot];
  }

  /** Counts a record once: false when this (worker, stage, request, attempt) was already received. */
  accept(node: number, rec: RequestRecord): boolean {
    const key = recordKey(node, rec);
    const slot = this.slots.get(node);
    if (this.seen.has(key) || slot === undefined) return false;
    this.seen.add(key);
    this.nodes[slot]!.received++;
    this.ids[slot]!.add(rec.id);
    return true;
  }

  finish(done: Done): void {
    const n = this.account(done.node);
    if (!n) return;
    n.done = done;
    // A worker declared lost that reports after all is still done: what it sent is all here.
    n.status = 'done';
    n.lostReason = null;
  }

  beat(b: Beat): void {
    const n = this.account(b.node);
    if (n) n.lastBeat = b;
  }

  lose(node: number, reason: string): void {
    const n = this.account(node);
    if (!n || n.status !== 'running') return;
    n.status = 'lost';
    n.lostReason = reason;
  }

  get settled(): boolean {
    return this.nodes.every((n) => n.status !== 'running');
  }

  /** Dispatch lateness of every worker, in worker order, from the chunks received. */
  dispatchLag(): Float64Array {
    const values: number[] = [];
    for (const n of this.nodes) for (const k of [...n.lag.keys()].sort((a, b) => a - b)) values.push(...n.lag.get(k)!);
    return Float64Array.from(values);
  }

  /**
   * Workers whose share is not complete: lost ones, and done ones whose records fell short of
   * what they said they published.
   */
  incomplete(): IncompleteNode[] {
    const out: IncompleteNode[] = [];
    for (const [slot, n] of this.nodes.entries()) {
      const short = n.done !== null && n.received < n.done.records;
      if (n.status !== 'lost' && !short) continue;
      const reason = n.status === 'lost' ? n.lostReason! : `${n.done!.records - n.received} of the ${n.done!.records} records it published never reached the coordinator`;
      if (this.total === null) {
        out.push({ node: n.node, reason, missing: null, missing_ids: [], received: n.received });
        continue;
      }
      const have = this.ids[slot]!;
      const missing = nodeRequestIds({ index: slot, count: this.workers }, this.total).filter((id) => !have.has(id));
      out.push({ node: n.node, reason, missing: missing.length, missing_ids: missing, received: n.received });
    }
    return out;
  }
}
