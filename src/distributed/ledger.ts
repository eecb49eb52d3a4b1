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
  readonly nodes: NodeAccount[];
  private readonly seen = new Set<string>();
  /** Request ids received per node (any attempt). */
  private readonly ids: Array<Set<number>>;

  constructor(
    readonly workers: number,
    /** Requests of the whole run; null when it stops by time. */
    private readonly total: number | null,
  ) {
    this.nodes = Array.from({ length: workers }, (_, node) => ({ node, status: 'running' as NodeStatus, received: 0, lostReason: null, done: null, lastBeat: null, lag: new Map() }));
    this.ids = Array.from({ length: workers }, () => new Set<number>());
  }

  /** Counts a record once: false when this (worker, stage, request, attempt) was already received. */
  accept(node: number, rec: RequestRecord): boolean {
    const key = recordKey(node, rec);
    if (this.seen.has(key) || node < 0 || node >= this.workers) return false;
    this.seen.add(key);
    this.nodes[node]!.received++;
    this.ids[node]!.add(rec.id);
    return true;
  }

  finish(done: Done): void {
    const n = this.nodes[done.node];
    if (!n) return;
    n.done = done;
    // A worker declared lost that reports after all is still done: what it sent is all here.
    n.status = 'done';
    n.lostReason = null;
  }

  beat(b: Beat): void {
    const n = this.nodes[b.node];
    if (n) n.lastBeat = b;
  }

  lose(node: number, reason: string): void {
    const n = this.nodes[node];
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
    for (const n of this.nodes) {
      const short = n.done !== null && n.received < n.done.records;
      if (n.status !== 'lost' && !short) continue;
      const reason = n.status === 'lost' ? n.lostReason! : `${n.done!.records - n.received} of the ${n.done!.records} records it published never reached the coordinator`;
      if (this.total === null) {
        out.push({ node: n.node, reason, missing: null, missing_ids: [], received: n.received });
        continue;
      }
      const have = this.ids[n.node]!;
      const missing = nodeRequestIds({ index: n.node, count: this.workers }, this.total).filter((id) => !have.has(id));
      out.push({ node: n.node, reason, missing: missing.length, missing_ids: missing, received: n.received });
    }
    return out;
  }
}
