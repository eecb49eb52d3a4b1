/**
 * The coordinator's side of a distributed run over NATS: the start barrier (hello with spec hash
 * and version, clock requests, ready), the start broadcast, the answers to workers' asks, then
 * the records from the JetStream stream into the ledger while heartbeats say who is alive
 * (stage-collection.ts). What to do with a record (write it, show progress) is the caller's.
 */
import { randomUUID } from 'node:crypto';
import { UserError } from '../errors/user-error.js';
import { epochNowMs } from './clock-offset.js';
import type { RunLedger } from './ledger.js';
import { Liveness } from './liveness.js';
import type { NatsLink } from './nats-link.js';
import {
  encodeJson,
  PROTOCOL_VERSION,
  type Beat,
  type Control,
  type Hello,
  type HelloReply,
  type WorkerHostFingerprint,
  type Ready,
  type RunState,
  type ControlQuery,
  type ControlReply,
  type TargetInfo,
} from './protocol.js';
import { collectStage, type CollectHooks } from './stage-collection.js';

export interface CoordinatorOptions {
  link: NatsLink;
  runId: string;
  workers: number;
  specHash: string;
  /** A sweep compares the hash without the stage's load (Hello.stage_hash): each stage's load is announced. */
  sweep?: boolean;
  version: string;
  log: (line: string) => void;
  /** Ctrl-C: before the start it ends the barrier; after it, workers are told to stop. */
  signal?: AbortSignal;
}

export interface JoinedNode {
  node: number;
  host: string;
  threads: number;
  clock: Ready['clock'];
  /** Its client host fingerprint (Hello.client); absent in a state written before protocol 4. */
  client?: WorkerHostFingerprint | null;
}

const fmtMs = (ms: number) => `${ms >= 0 ? '+' : ''}${ms.toFixed(2)} ms`;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

export class Coordinator {
  private readonly joined = new Map<number, Hello>();
  /** Ready reports by stage, then worker. */
  private readonly ready = new Map<number, Map<number, JoinedNode>>();
  private readonly liveness = new Liveness();
  private readonly lastBeats = new Map<number, Beat>();
  private subs: Array<{ unsubscribe(): void }> = [];
  /** Set once the first stage started: a worker joining later is refused. */
  private started = false;
  /** What was broadcast about each stage (its announcement, its start) and the sweep's end: a worker that missed it asks. */
  private readonly announces = new Map<number, Extract<Control, { type: 'stage' }>>();
  private readonly starts = new Map<number, number>();
  private ended = false;
  /** This process's id, told to workers at hello: a restarted coordinator has another. */
  private readonly session = randomUUID();
  private failure: Error | null = null;

  constructor(private readonly o: CoordinatorOptions) {}

  /**
   * Serves hello, clock and ready (for the whole session) and waits until every worker is ready
   * for the run — in a sweep, until every worker has joined (stageReady follows). A worker with
   * another spec, version or an index out of range ends the run (every worker is told), named in
   * the error; a second worker with a taken index is refused alone.
   */
  async barrier(target: TargetInfo, timeoutMs: number): Promise<JoinedNode[]> {
    const { link, workers, log } = this.o;
    const sweep = this.o.sweep === true;
    const refuse = (h: Hello, reason: string): HelloReply => {
      this.failure ??= new UserError(`worker ${h.node} (${h.host}) refused: ${reason}`);
      return { ok: false, reason };
    };
    this.subs.push(
      link.serve<Hello, HelloReply>(link.subjects.hello, (h) => {
        if (this.started) {
          log(`refused worker ${h.node} (${h.host}): the run has already started`);
          return { ok: false, reason: 'the run has already started; a worker joining now would send its share again' };
        }
        if (h.protocol !== PROTOCOL_VERSION || h.version !== this.o.version) {
          return refuse(h, `it runs infermeter ${h.version} (protocol ${h.protocol}), the coordinator ${this.o.version} (protocol ${PROTOCOL_VERSION}); use one image for both`);
        }
        const theirs = sweep ? h.stage_hash : h.spec_hash;
        if (theirs !== this.o.specHash) {
          return refuse(h, `its spec (hash ${theirs}) differs from the coordinator's (hash ${this.o.specHash}); give both the same --config and flags${sweep ? ' (all but the stage list, which the coordinator announces)' : ''}`);
        }
        if (!Number.isInteger(h.node) || h.node < 0 || h.node >= workers) {
          return refuse(h, `index ${h.node} is out of range for --workers-expected ${workers} (0–${workers - 1})`);
        }
        if (this.joined.has(h.node)) {
          const reason = `worker ${h.node} has already joined this run (from ${this.joined.get(h.node)!.host}); a second one would send its share twice`;
          log(`refused a second worker ${h.node} (${h.host}): ${reason}`);
          return { ok: false, reason };
        }
        this.joined.set(h.node, h);
        this.liveness.heard(h.node);
        const threads = h.threads === 0 ? 'load on its main thread' : `${h.threads} load thread${h.threads === 1 ? '' : 's'}`;
        log(`worker ${h.node} joined (${h.host}, ${threads}): ${this.joined.size}/${workers}`);
        return { ok: true, run_id: this.o.runId, workers, target, sweep, session: this.session };
      }),
      link.serve<unknown, { now_ms: number }>(link.subjects.clock, () => ({ now_ms: epochNowMs() })),
      this.serveAsks(),
      link.serve<Ready, { ok: boolean }>(link.subjects.ready, (r) => {
        const h = this.joined.get(r.node);
        // A worker that joined a coordinator since restarted is not one of this one's.
        if (!h || r.session !== this.session) return { ok: false };
        const stage = r.stage ?? 0;
        const byNode = this.ready.get(stage) ?? new Map<number, JoinedNode>();
        this.ready.set(stage, byNode);
        byNode.set(r.node, { node: r.node, host: h.host, threads: h.threads, clock: r.clock, client: h.client ?? null });
        log(`worker ${r.node} ready${sweep ? ` for stage ${stage + 1}` : ''}: clock offset ${fmtMs(r.clock.offset_ms)} (round trip ${r.clock.rtt_ms.toFixed(2)} ms)`);
        return { ok: true };
      }),
      link.listen<Beat>(link.subjects.beat, (b) => {
        if (!this.joined.has(b.node)) return;
        this.liveness.heard(b.node);
        this.lastBeats.set(b.node, b);
      }),
    );
    const all = range(workers);
    const readyNow = () => this.ready.get(0)?.size ?? 0;
    await this.waitFor(
      () => (sweep ? this.joined.size === workers : all.every((n) => this.ready.get(0)?.has(n))),
      timeoutMs,
      () => {
        const missing = all.filter((i) => (sweep ? !this.joined.has(i) : !this.ready.get(0)?.has(i)));
        return sweep
          ? `only ${this.joined.size} of ${workers} workers joined after ${timeoutMs / 1000} s (--worker-wait); missing: ${missing.join(', ')}`
          : `only ${readyNow()} of ${workers} workers were ready after ${timeoutMs / 1000} s (--worker-wait); missing: ${missing.join(', ')}`;
      },
      () => {
        const missing = all.filter((i) => !this.ready.get(0)?.has(i));
        log(`waiting for workers: ${this.joined.size}/${workers} joined, ${readyNow()}/${workers} ready (missing: ${missing.join(', ')})`);
      },
    );
    return sweep ? [] : this.readyNodes(0, all);
  }

  /**
   * A sweep stage's barrier: announces the stage (again each second, so a worker still
   * subscribing hears it) and waits until each of `nodes` is ready for it. A worker that falls
   * silent meanwhile (no heartbeat for `workerTimeoutMs`) ends the sweep: its share of the stage
   * is already fixed.
   */
  async stageReady(announce: Extract<Control, { type: 'stage' }>, timeoutMs: number, workerTimeoutMs: number): Promise<JoinedNode[]> {
    const { stage, nodes } = announce;
    this.announces.set(stage, announce);
    const send = () => {
      this.broadcast(announce);
      this.liveness.tick(1000);
      for (const n of nodes) {
        const silent = this.liveness.silentMs(n);
        if (silent > workerTimeoutMs && !this.ready.get(stage)?.has(n)) {
          this.failure ??= new UserError(`worker ${n} stopped sending heartbeats before stage ${stage + 1} (none for ${(silent / 1000).toFixed(1)} s): the sweep stops here`);
        }
      }
    };
    this.liveness.restart();
    send();
    const again = setInterval(send, 1000);
    try {
      await this.waitFor(
        () => nodes.every((n) => this.ready.get(stage)?.has(n)),
        timeoutMs,
        () => `stage ${stage + 1}: only ${this.ready.get(stage)?.size ?? 0} of ${nodes.length} workers were ready after ${timeoutMs / 1000} s (--worker-wait); missing: ${nodes.filter((n) => !this.ready.get(stage)?.has(n)).join(', ')}`,
      );
    } finally {
      clearInterval(again);
    }
    return this.readyNodes(stage, nodes);
  }

  private readyNodes(stage: number, nodes: number[]): JoinedNode[] {
    const byNode = this.ready.get(stage)!;
    return nodes.map((n) => byNode.get(n)!);
  }

  /** Polls `done` until it holds; a refusal, the timeout or Ctrl-C tells every worker to stop and throws. */
  private async waitFor(done: () => boolean, timeoutMs: number, timeoutMessage: () => string, every5s?: () => void): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let nextNote = Date.now() + 5_000;
    try {
      for (;;) {
        if (this.failure) throw this.failure;
        if (this.o.signal?.aborted) throw new UserError('interrupted while waiting for workers: nothing was sent');
        if (done()) return;
        if (Date.now() >= deadline) throw new UserError(timeoutMessage());
        if (every5s && Date.now() >= nextNote) {
          every5s();
          nextNote = Date.now() + 5_000;
        }
        await new Promise((r) => setTimeout(r, 25));
      }
    } catch (err) {
      this.broadcast({ type: 'abort', reason: (err as Error).message, nodes: null });
      await this.o.link.flush();
      throw err;
    }
  }

  /**
   * Broadcasts stage `stage`'s start `leadMs` ahead; in a run (stage 0 with `state`) it first
   * stores the run's state in the stream (for a restart). From now on a joining worker is refused.
   */
  async start(stage: number, leadMs: number, state?: Omit<RunState, 'start_at_ms'>, workers = this.o.workers): Promise<number> {
    this.started = true;
    const startAt = epochNowMs() + leadMs;
    // Known before it is broadcast: a worker asking from now on gets it even if the broadcast is lost.
    this.starts.set(stage, startAt);
    if (state) await this.o.link.publish(this.o.link.subjects.state, encodeJson({ ...state, start_at_ms: startAt }), 'state');
    this.broadcast({ type: 'start', stage, start_at_ms: startAt });
    await this.o.link.flush();
    this.o.log(`start broadcast${this.o.sweep ? ` (stage ${stage + 1})` : ''}: the load begins in ${(leadMs / 1000).toFixed(1)} s on ${workers === 1 ? '1 worker' : `${workers} workers`}`);
    return startAt;
  }

  /**
   * A resumed run: its load has started (at `startAtMs`), so every worker saying hello is refused
   * (and told why); a worker still waiting for the start (the coordinator died between storing
   * the run's state and broadcasting it) gets it by asking.
   */
  refuseJoins(startAtMs: number): void {
    this.started = true;
    this.starts.set(0, startAtMs);
    this.subs.push(
      this.serveAsks(),
      this.o.link.serve<Hello, HelloReply>(this.o.link.subjects.hello, (h) => {
        this.o.log(`refused worker ${h.node} (${h.host}): the run has already started`);
        return { ok: false, reason: 'the run has already started; a worker joining now would send its share again' };
      }),
    );
  }

  /** The sweep is over: workers exit (said twice; a worker missing it gives up after its --wait). */
  async end(): Promise<void> {
    this.ended = true;
    this.broadcast({ type: 'end' });
    await this.o.link.flush();
    this.broadcast({ type: 'end' });
    await this.o.link.flush();
  }

  private serveAsks(): { unsubscribe(): void } {
    return this.o.link.serve<ControlQuery, ControlReply>(this.o.link.subjects.ask, (q) => ({ stage: this.announces.get(q.stage) ?? null, start_at_ms: this.starts.get(q.stage ?? 0) ?? null, ended: this.ended, session: this.session }));
  }

  /** Stops serving hello, clock, ready and asks. */
  close(): void {
    for (const s of this.subs) s.unsubscribe();
    this.subs = [];
  }

  broadcast(c: Control): void {
    this.o.link.broadcast(this.o.link.subjects.control, c);
  }

  /**
   * Reads stage `stage`'s messages from the stream (from sequence `fromSeq`) into a ledger of
   * `nodes` until every one is done or lost (collectStage); lost workers and Ctrl-C are told to
   * stop by this coordinator's broadcast.
   */
  collect(hooks: CollectHooks): Promise<{ ledger: RunLedger; interrupted: boolean }> {
    return collectStage({ link: this.o.link, log: this.o.log, signal: this.o.signal, broadcast: (c) => this.broadcast(c) }, hooks);
  }
}
