/**
 * The coordinator's side of a distributed run over NATS: the start barrier (hello with spec hash
 * and version, clock requests, ready), the start broadcast, then the records from the JetStream
 * stream into the ledger while heartbeats say who is alive. What to do with a record (write it,
 * show progress) is the caller's.
 */
import { UserError } from '../errors/user-error.js';
import { recordFromJsonLine } from '../record/jsonl.js';
import type { RequestRecord } from '../record/record.js';
import { mergeSnapshots, type ProgressSnapshot } from '../runner/progress.js';
import { epochNowMs } from './clock-offset.js';
import { RunLedger } from './ledger.js';
import type { NatsLink, StreamMessage } from './nats-link.js';
import {
  decodeJson,
  decodeText,
  encodeJson,
  PROTOCOL_VERSION,
  type Beat,
  type Control,
  type Done,
  type Hello,
  type HelloReply,
  type Ready,
  type RunState,
  type TargetInfo,
} from './protocol.js';

export interface CoordinatorOptions {
  link: NatsLink;
  runId: string;
  workers: number;
  specHash: string;
  version: string;
  /** Requests of the whole run; null when it stops by time. */
  totalRequests: number | null;
  log: (line: string) => void;
  /** Ctrl-C: before the start it ends the barrier; after it, workers are told to stop. */
  signal?: AbortSignal;
}

export interface JoinedNode {
  node: number;
  host: string;
  threads: number;
  clock: Ready['clock'];
}

const fmtMs = (ms: number) => `${ms >= 0 ? '+' : ''}${ms.toFixed(2)} ms`;

export class Coordinator {
  constructor(private readonly o: CoordinatorOptions) {}

  /**
   * Serves hello, clock and ready until every worker is ready. A worker with another spec, version
   * or an index out of range ends the run (every worker is told), named in the error; a second
   * worker with a taken index is refused alone.
   */
  async barrier(target: TargetInfo, timeoutMs: number): Promise<JoinedNode[]> {
    const { link, workers, log } = this.o;
    const joined = new Map<number, Hello>();
    const ready = new Map<number, JoinedNode>();
    let fail: (err: Error) => void = () => {};
    let pass: () => void = () => {};
    const outcome = new Promise<void>((resolve, reject) => ((pass = resolve), (fail = reject)));
    const refuse = (h: Hello, reason: string): HelloReply => {
      fail(new UserError(`worker ${h.node} (${h.host}) refused: ${reason}`));
      return { ok: false, reason };
    };
    const subs = [
      link.serve<Hello, HelloReply>(link.subjects.hello, (h) => {
        if (h.protocol !== PROTOCOL_VERSION || h.version !== this.o.version) {
          return refuse(h, `it runs infermeter ${h.version} (protocol ${h.protocol}), the coordinator ${this.o.version} (protocol ${PROTOCOL_VERSION}); use one image for both`);
        }
        if (h.spec_hash !== this.o.specHash) {
          return refuse(h, `its spec (hash ${h.spec_hash}) differs from the coordinator's (hash ${this.o.specHash}); give both the same --config and flags`);
        }
        if (!Number.isInteger(h.node) || h.node < 0 || h.node >= workers) {
          return refuse(h, `index ${h.node} is out of range for --workers-expected ${workers} (0–${workers - 1})`);
        }
        if (joined.has(h.node)) {
          const reason = `worker ${h.node} has already joined this run (from ${joined.get(h.node)!.host}); a second one would send its share twice`;
          log(`refused a second worker ${h.node} (${h.host}): ${reason}`);
          return { ok: false, reason };
        }
        joined.set(h.node, h);
        const threads = h.threads === 0 ? 'load on its main thread' : `${h.threads} load thread${h.threads === 1 ? '' : 's'}`;
        log(`worker ${h.node} joined (${h.host}, ${threads}): ${joined.size}/${workers}`);
        return { ok: true, run_id: this.o.runId, workers, target };
      }),
      link.serve<unknown, { now_ms: number }>(link.subjects.clock, () => ({ now_ms: epochNowMs() })),
      link.serve<Ready, { ok: boolean }>(link.subjects.ready, (r) => {
        const h = joined.get(r.node);
        if (!h) return { ok: false };
        ready.set(r.node, { node: r.node, host: h.host, threads: h.threads, clock: r.clock });
        log(`worker ${r.node} ready: clock offset ${fmtMs(r.clock.offset_ms)} (round trip ${r.clock.rtt_ms.toFixed(2)} ms)`);
        if (ready.size === workers) pass();
        return { ok: true };
      }),
    ];
    const waiting = setInterval(() => {
      const missing = Array.from({ length: workers }, (_, i) => i).filter((i) => !ready.has(i));
      log(`waiting for workers: ${joined.size}/${workers} joined, ${ready.size}/${workers} ready (missing: ${missing.join(', ')})`);
    }, 5_000);
    const timer = setTimeout(() => fail(new UserError(`only ${ready.size} of ${workers} workers were ready after ${timeoutMs / 1000} s (--worker-wait); missing: ${Array.from({ length: workers }, (_, i) => i).filter((i) => !ready.has(i)).join(', ')}`)), timeoutMs);
    const onAbort = () => fail(new UserError('interrupted while waiting for workers: nothing was sent'));
    this.o.signal?.addEventListener('abort', onAbort);
    if (this.o.signal?.aborted) onAbort();
    try {
      await outcome;
      return [...ready.values()].sort((a, b) => a.node - b.node);
    } catch (err) {
      this.broadcast({ type: 'abort', reason: (err as Error).message, nodes: null });
      await link.flush();
      throw err;
    } finally {
      clearInterval(waiting);
      clearTimeout(timer);
      this.o.signal?.removeEventListener('abort', onAbort);
      // Hello stays answered (with a refusal) for the run: a late or restarted worker is told why.
      for (const s of subs) s.unsubscribe();
    }
  }

  /** Keeps refusing workers that join after the start, so none sends its share twice. */
  refuseLateJoiners(): { stop(): void } {
    const { link } = this.o;
    const sub = link.serve<Hello, HelloReply>(link.subjects.hello, (h) => {
      this.o.log(`refused worker ${h.node} (${h.host}): the run has already started`);
      return { ok: false, reason: 'the run has already started; a worker joining now would send its share again' };
    });
    return { stop: () => sub.unsubscribe() };
  }

  /** Broadcasts the start `leadMs` ahead and stores the run's state in the stream (for a restart). */
  async start(state: Omit<RunState, 'start_at_ms'>, leadMs: number): Promise<RunState> {
    const full: RunState = { ...state, start_at_ms: epochNowMs() + leadMs };
    await this.o.link.publish(this.o.link.subjects.state, encodeJson(full), 'state');
    this.broadcast({ type: 'start', start_at_ms: full.start_at_ms });
    await this.o.link.flush();
    this.o.log(`start broadcast: the load begins in ${(leadMs / 1000).toFixed(1)} s on ${state.workers} workers`);
    return full;
  }

  broadcast(c: Control): void {
    this.o.link.broadcast(this.o.link.subjects.control, c);
  }

  /**
   * Reads the stream from its first message into the ledger until every worker is done or lost
   * (no heartbeat for `workerTimeoutMs`). Each new record goes to `onRecord` once.
   */
  async collect(hooks: { onRecord: (rec: RequestRecord) => void; onProgress?: (p: ProgressSnapshot) => void; workerTimeoutMs: number }): Promise<{ ledger: RunLedger; interrupted: boolean }> {
    const { link, workers, log } = this.o;
    const ledger = new RunLedger(workers, this.o.totalRequests);
    const lastSeen = Array.from({ length: workers }, () => Date.now());
    const beats = link.listen<Beat>(link.subjects.beat, (b) => {
      if (b.node < 0 || b.node >= workers) return;
      lastSeen[b.node] = Date.now();
      ledger.beat(b);
    });
    let seq = 0;
    const onMessage = (m: StreamMessage) => {
      seq = m.seq;
      const parts = m.subject.split('.');
      const kind = parts[parts.length - 2];
      const node = Number(parts[parts.length - 1]);
      if (kind === 'rec') {
        const rec = recordFromJsonLine(decodeText(m.data));
        rec.node = node;
        if (ledger.accept(node, rec)) hooks.onRecord(rec);
      } else if (kind === 'lag') {
        const chunk = decodeJson<{ k: number; values: number[] }>(m.data);
        ledger.nodes[node]?.lag.set(chunk.k, chunk.values);
      } else if (kind === 'done') {
        const done = decodeJson<Done>(m.data);
        if (ledger.nodes[done.node]?.status === 'running') log(`worker ${done.node} done: ${done.records} records${done.error ? ` (stopped: ${done.error})` : ''}`);
        ledger.finish(done);
      }
    };
    const consumer = await link.consume(onMessage, (err, m) => log(`skipped stream message ${m.seq} on ${m.subject}: ${(err as Error).message}`));
    let interrupted = false;
    const onAbort = () => {
      interrupted = true;
      this.broadcast({ type: 'abort', reason: 'the coordinator was interrupted', nodes: null });
    };
    this.o.signal?.addEventListener('abort', onAbort);
    if (this.o.signal?.aborted) onAbort();
    const progress = hooks.onProgress ? setInterval(() => hooks.onProgress!({ ...mergeBeats(ledger), total: this.o.totalRequests }), 1000) : null;
    try {
      await new Promise<void>((resolve) => {
        const watch = setInterval(() => {
          const now = Date.now();
          for (const n of ledger.nodes) {
            if (n.status !== 'running' || now - lastSeen[n.node]! <= hooks.workerTimeoutMs) continue;
            const reason = `stopped sending heartbeats (none for ${((now - lastSeen[n.node]!) / 1000).toFixed(1)} s): it died or stalled, and its share is not sent again`;
            ledger.lose(n.node, reason);
            log(`worker ${n.node} lost: ${reason}`);
            this.broadcast({ type: 'abort', reason: 'the coordinator declared this worker lost', nodes: [n.node] });
          }
          if (ledger.settled) {
            clearInterval(watch);
            resolve();
          }
        }, 100);
      });
      // What was published before the last worker settled may still be on its way to this reader.
      const last = await link.lastSeq();
      const deadline = Date.now() + 10_000;
      while (seq < last && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      return { ledger, interrupted };
    } finally {
      if (progress) clearInterval(progress);
      this.o.signal?.removeEventListener('abort', onAbort);
      beats.unsubscribe();
      await consumer.stop();
    }
  }
}

/** The run's progress from each worker's last heartbeat (sums; the worst worker's health). */
export function mergeBeats(ledger: RunLedger): ProgressSnapshot {
  const beats = ledger.nodes.map((n) => n.lastBeat).filter((b): b is Beat => b !== null);
  return mergeSnapshots(beats) ?? { elapsed_ms: 0, total: null, duration_ms: null, sent: 0, done: 0, ok: 0, failed: 0, inflight: 0, queued: 0, output_tokens: 0, lag_max_ms: null, busy: null };
}
