/**
 * The coordinator's collection of a stage's results: the records, dispatch lateness and "done"
 * of each worker read from the JetStream stream into the stage's ledger (each record counted once
 * by its idempotent key), while heartbeats say who is alive. A worker silent past the timeout is
 * lost and told to stop; Ctrl-C tells every worker to stop. What to do with a record (write it,
 * show progress) is the caller's.
 */
import { recordFromJsonLine } from '../record/jsonl.js';
import type { RequestRecord } from '../record/record.js';
import { mergeSnapshots, type ProgressSnapshot } from '../runner/progress.js';
import { RunLedger } from './ledger.js';
import { Liveness } from './liveness.js';
import type { NatsLink, StreamMessage } from './nats-link.js';
import { decodeJson, decodeText, type Beat, type Control, type Done } from './protocol.js';

/** What collection needs of the coordinator: its link, log, Ctrl-C and control broadcast. */
export interface CollectContext {
  link: NatsLink;
  log: (line: string) => void;
  signal?: AbortSignal;
  broadcast: (c: Control) => void;
}

export interface CollectHooks {
  stage: number;
  nodes: readonly number[];
  /** Requests of the stage; null when it stops by time. */
  totalRequests: number | null;
  fromSeq?: number;
  onRecord: (rec: RequestRecord) => void;
  onProgress?: (p: ProgressSnapshot) => void;
  workerTimeoutMs: number;
}

/**
 * Reads stage `stage`'s messages from the stream (from sequence `fromSeq`) into a ledger of
 * `nodes` until every one is done or lost (no heartbeat for `workerTimeoutMs`). Each new record
 * goes to `onRecord` once.
 */
export async function collectStage(c: CollectContext, hooks: CollectHooks): Promise<{ ledger: RunLedger; interrupted: boolean }> {
  const { link, log } = c;
  const { stage } = hooks;
  const ledger = new RunLedger(hooks.nodes, hooks.totalRequests);
  const taking = new Set(hooks.nodes);
  const liveness = new Liveness(hooks.nodes);
  const beats = link.listen<Beat>(link.subjects.beat, (b) => {
    if (!taking.has(b.node)) return;
    liveness.heard(b.node);
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
      if (rec.stage === stage && ledger.accept(node, rec)) hooks.onRecord(rec);
    } else if (kind === 'lag') {
      const chunk = decodeJson<{ k: number; values: number[]; stage?: number }>(m.data);
      if ((chunk.stage ?? 0) === stage) ledger.account(node)?.lag.set(chunk.k, chunk.values);
    } else if (kind === 'done') {
      const done = decodeJson<Done>(m.data);
      if ((done.stage ?? 0) !== stage) return;
      if (ledger.account(done.node)?.status === 'running') log(`worker ${done.node} done: ${done.records} records${done.error ? ` (stopped: ${done.error})` : ''}`);
      ledger.finish(done);
    }
  };
  const consumer = await link.consume(onMessage, (err, m) => log(`skipped stream message ${m.seq} on ${m.subject}: ${(err as Error).message}`), hooks.fromSeq);
  let interrupted = false;
  const onAbort = () => {
    interrupted = true;
    c.broadcast({ type: 'abort', reason: 'the coordinator was interrupted', nodes: null });
  };
  c.signal?.addEventListener('abort', onAbort);
  if (c.signal?.aborted) onAbort();
  const progress = hooks.onProgress ? setInterval(() => hooks.onProgress!({ ...mergeBeats(ledger), total: hooks.totalRequests }), 1000) : null;
  try {
    await new Promise<void>((resolve) => {
      const watch = setInterval(() => {
        liveness.tick(100);
        for (const n of ledger.nodes) {
          const silent = liveness.silentMs(n.node);
          if (n.status !== 'running' || silent <= hooks.workerTimeoutMs) continue;
          const reason = `stopped sending heartbeats (none for ${(silent / 1000).toFixed(1)} s): it died or stalled, and its share is not sent again`;
          ledger.lose(n.node, reason);
          log(`worker ${n.node} lost: ${reason}`);
          c.broadcast({ type: 'abort', reason: 'the coordinator declared this worker lost', nodes: [n.node] });
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
    c.signal?.removeEventListener('abort', onAbort);
    beats.unsubscribe();
    await consumer.stop();
  }
}

/** The run's progress from each worker's last heartbeat (sums; the worst worker's health). */
export function mergeBeats(ledger: RunLedger): ProgressSnapshot {
  const beats = ledger.nodes.map((n) => n.lastBeat).filter((b): b is Beat => b !== null);
  return mergeSnapshots(beats) ?? { elapsed_ms: 0, total: null, duration_ms: null, sent: 0, done: 0, ok: 0, failed: 0, inflight: 0, queued: 0, output_tokens: 0, lag_max_ms: null, busy: null };
}
