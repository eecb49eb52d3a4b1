/**
 * A worker's side of a distributed run over NATS: join (hello with spec hash and version, until a
 * coordinator answers), measure the clock against it, report ready, wait for the start, then
 * stream every record to JetStream with its idempotent id, beat once a second, and say done.
 */
import { hostname } from 'node:os';
import { UserError } from '../errors/user-error.js';
import { recordToJsonLine } from '../record/jsonl.js';
import type { RequestRecord } from '../record/record.js';
import type { ProgressSnapshot } from '../runner/progress.js';
import { hrtimeNowNs } from '../runner/run-clock.js';
import { epochNowMs, estimateOffset, type ClockSample } from './clock-offset.js';
import type { NatsLink } from './nats-link.js';
import { encodeJson, encodeText, LAG_CHUNK, PROTOCOL_VERSION, recordKey, type Beat, type ClockEstimate, type Control, type Done, type ControlQuery, type ControlReply, type Hello, type HelloReply, type Ready, type TargetInfo, type WorkerHostFingerprint } from './protocol.js';
import { StreamPublisher } from './stream-publisher.js';

const CLOCK_SAMPLES = 9;
/** How long a worker waits for a broadcast (a stage's announcement or start) before it asks the coordinator for it. */
const ASK_EVERY_MS = 1_000;

export interface Joined {
  runId: string;
  workers: number;
  target: TargetInfo;
  /** A sweep: stages are announced one after another until "end". */
  sweep: boolean;
  /** The coordinator session joined (HelloReply.session). */
  session: string;
}

export type StageAnnounce = Extract<Control, { type: 'stage' }>;

export class WorkerSession {
  private controlSub: { unsubscribe(): void } | null = null;
  private readonly starts = new Map<number, number>();
  private readonly stages = new Map<number, StageAnnounce>();
  private ended = false;
  /** Stages the coordinator stopped early, and what to call when one is. */
  private readonly stopped = new Set<number>();
  private readonly onStops = new Map<number, () => void>();
  private waiters: Array<() => void> = [];
  private abortReason: string | null = null;
  private beatTimer: NodeJS.Timeout | null = null;
  private latest: ProgressSnapshot | null = null;
  private published = 0;
  private readonly publisher: StreamPublisher;
  clock: ClockEstimate | null = null;
  readonly host = hostname();

  /** What the coordinator answered at hello (set by join). */
  joined!: Joined;

  private constructor(
    private readonly link: NatsLink,
    readonly node: number,
    onAbort: (reason: string) => void,
    /** --wait: how long the coordinator may stay silent before this worker gives up on it. */
    private readonly waitMs: number,
  ) {
    this.publisher = new StreamPublisher(link);
    // Subscribed before the hello is sent (on the same connection, so the server has the
    // subscription before the coordinator hears of this worker): a stage announced right after
    // the last worker joined reaches it. A sweep stage this worker has no share in is announced
    // until the stage's own workers are ready, and not after.
    this.controlSub = link.listen<Control>(link.subjects.control, (c) => {
      if (c.type === 'start') this.starts.set(c.stage ?? 0, c.start_at_ms);
      else if (c.type === 'stage') this.stages.set(c.stage, c);
      else if (c.type === 'end') this.ended = true;
      else if (c.type === 'stop') {
        this.stopped.add(c.stage);
        this.onStops.get(c.stage)?.();
      }
      else if (c.type === 'abort' && (c.nodes === null || c.nodes.includes(node))) {
        if (this.abortReason === null) onAbort(c.reason);
        this.abortReason = c.reason;
      } else return;
      for (const w of this.waiters.splice(0)) w();
    });
  }

  /** Resolves once `ready` returns a value (checked at every control message) or `timeoutMs` passed (null). */
  private async until<T>(ready: () => T | undefined, timeoutMs = Infinity): Promise<T | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = ready();
      if (v !== undefined) return v;
      const left = deadline - Date.now();
      if (left <= 0) return null;
      await new Promise<void>((r) => {
        const t = Number.isFinite(left) ? setTimeout(r, left) : null;
        this.waiters.push(() => {
          if (t) clearTimeout(t);
          r();
        });
      });
    }
  }

  /** Says hello until a coordinator answers (within `waitMs`); a refusal is a UserError with its reason. */
  static async join(link: NatsLink, o: { node: number; specHash: string; stageHash: string; version: string; threads: number; client?: WorkerHostFingerprint | null; waitMs: number; log: (line: string) => void; onAbort: (reason: string) => void }): Promise<WorkerSession> {
    const deadline = Date.now() + o.waitMs;
    const hello: Hello = { protocol: PROTOCOL_VERSION, node: o.node, spec_hash: o.specHash, stage_hash: o.stageHash, version: o.version, host: hostname(), threads: o.threads, client: o.client ?? null };
    const session = new WorkerSession(link, o.node, o.onAbort, o.waitMs);
    let said = false;
    try {
      for (;;) {
        const reply = await link.request<HelloReply>(link.subjects.hello, hello, 2_000);
        if (reply && reply.ok) {
          session.joined = { runId: reply.run_id, workers: reply.workers, target: reply.target, sweep: reply.sweep === true, session: reply.session };
          return session;
        }
        if (reply && !reply.ok) throw new UserError(`worker ${o.node}: refused by the coordinator: ${reply.reason}`);
        if (Date.now() >= deadline) throw new UserError(`worker ${o.node}: no coordinator answered on ${link.subjects.hello} within ${o.waitMs / 1000} s (--wait)`);
        if (!said) o.log(`worker ${o.node}: waiting for the coordinator (${link.subjects.hello})`);
        said = true;
        await new Promise((r) => setTimeout(r, 500));
      }
    } catch (err) {
      session.close();
      throw err;
    }
  }

  /** The coordinator's clock against ours (NTP-style; the answer with the shortest round trip). */
  async measureClock(): Promise<ClockEstimate> {
    const samples: ClockSample[] = [];
    for (let i = 0; i < CLOCK_SAMPLES; i++) {
      const sent = epochNowMs();
      const reply = await this.link.request<{ now_ms: number }>(this.link.subjects.clock, {}, 2_000);
      const received = epochNowMs();
      if (reply) samples.push({ sent_ms: sent, remote_ms: reply.now_ms, received_ms: received });
    }
    if (samples.length === 0) throw new UserError(`worker ${this.node}: the coordinator stopped answering clock requests`);
    this.clock = estimateOffset(samples);
    return this.clock;
  }

  /**
   * A sweep's stage `stage` as the coordinator announces it; null when the sweep ended or this
   * worker was told to stop. The wait has no limit while the coordinator answers (a stage this
   * worker has no share in can be long); a coordinator silent for `silentMs` is gone.
   */
  async nextStage(stage: number, silentMs = this.waitMs): Promise<StageAnnounce | null> {
    return this.awaitStageMessage(stage, () => (this.abortReason !== null || this.ended ? null : this.stages.get(stage)), silentMs, `the coordinator announced no stage ${stage + 1}`);
  }

  /**
   * Reports ready for `stage` (0 in a run), waits for its start and returns t = 0 on this
   * process's monotonic clock (ns), reached: the coordinator's start time moved onto our clock by
   * the measured offset. Aborted before the start: now (the load threads were told to send nothing).
   */
  async readyAndWaitForStart(stage = 0): Promise<string> {
    const clock = this.clock ?? (await this.measureClock());
    this.published = 0;
    this.latest = null;
    await this.reportReady({ node: this.node, stage, clock, session: this.joined.session });
    const startAt = await this.waitForStart(stage);
    if (startAt === null) return hrtimeNowNs();
    const aheadMs = startAt - clock.offset_ms - epochNowMs();
    const origin = BigInt(hrtimeNowNs()) + BigInt(Math.round(Math.max(0, aheadMs) * 1e6));
    if (aheadMs > 3) await new Promise((r) => setTimeout(r, aheadMs - 2));
    while (process.hrtime.bigint() < origin) await new Promise((r) => setImmediate(r));
    return origin.toString();
  }

  /**
   * The ready report, sent again until the coordinator answers (it keeps one per worker and
   * stage, so a repeat is harmless); a coordinator silent for --wait is gone.
   */
  private async reportReady(ready: Ready): Promise<void> {
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const ack = await this.link.request<{ ok: boolean }>(this.link.subjects.ready, ready, 10_000);
      if (ack?.ok) return;
      if (ack) throw new UserError(`worker ${this.node}: the coordinator did not take the ready report`);
      if (this.abortReason !== null) return;
      if (Date.now() >= deadline) throw new UserError(`worker ${this.node}: the coordinator did not answer its ready report${this.joined.sweep ? ` for stage ${ready.stage + 1}` : ''} within ${this.waitMs / 1000} s (--wait): it is gone`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  /**
   * Stage `stage`'s start time (coordinator clock, epoch ms); null when told to stop first. A
   * lost start would leave this worker waiting for ever while its heartbeats keep the
   * coordinator waiting for its records: the whole run would hang.
   */
  private waitForStart(stage: number): Promise<number | null> {
    return this.awaitStageMessage(stage, () => (this.abortReason !== null ? null : this.starts.get(stage)), this.waitMs, `no start${this.joined.sweep ? ` for stage ${stage + 1}` : ''}`);
  }

  /**
   * Waits until `got` returns a value (null: stop waiting), checked at each control message.
   * Without one for ASK_EVERY_MS it asks the coordinator what it said about `stage` (a broadcast
   * this worker missed), again each time; once the coordinator has not answered for `silentMs`
   * it is gone: a UserError saying what never came.
   */
  private async awaitStageMessage<T>(stage: number, got: () => T | null | undefined, silentMs: number, missing: string): Promise<T | null> {
    let heardAt = Date.now();
    for (;;) {
      const v = await this.until(got, ASK_EVERY_MS);
      if (v !== null) return v;
      if (got() === null) return null;
      const q: ControlQuery = { node: this.node, stage, session: this.joined.session };
      const reply = await this.link.request<ControlReply>(this.link.subjects.ask, q, 2_000);
      // A restarted run coordinator resumes the run (its start is the stored one); a sweep's starts afresh without this worker.
      if (reply && reply.session !== this.joined.session && this.joined.sweep) {
        throw new UserError(`worker ${this.node}: the sweep's coordinator was restarted; a restarted sweep starts afresh and this worker is not part of it (start it again)`);
      }
      if (reply) {
        heardAt = Date.now();
        if (reply.stage && !this.stages.has(stage)) this.stages.set(stage, reply.stage);
        if (reply.start_at_ms !== null && !this.starts.has(stage)) this.starts.set(stage, reply.start_at_ms);
        if (reply.ended) this.ended = true;
      } else if (Date.now() - heardAt >= silentMs) {
        throw new UserError(`worker ${this.node}: ${missing}, and the coordinator has not answered for ${silentMs / 1000} s (--wait): it is gone`);
      }
    }
  }

  /** Calls `fn` when the coordinator stops stage `stage` early (at once if it already has). */
  onStageStop(stage: number, fn: () => void): void {
    if (this.stopped.has(stage)) fn();
    else this.onStops.set(stage, fn);
  }

  /** Why the coordinator told this worker to stop (null: it did not). */
  get aborted(): string | null {
    return this.abortReason;
  }

  /** Heartbeats once a second with the latest progress, until finish(). */
  startBeats(): void {
    const beat = () => {
      const p = this.latest;
      const b: Beat = {
        node: this.node,
        sent: p?.sent ?? 0,
        done: p?.done ?? 0,
        ok: p?.ok ?? 0,
        failed: p?.failed ?? 0,
        inflight: p?.inflight ?? 0,
        queued: p?.queued ?? 0,
        output_tokens: p?.output_tokens ?? 0,
        elapsed_ms: p?.elapsed_ms ?? 0,
        total: p?.total ?? null,
        duration_ms: p?.duration_ms ?? null,
        lag_max_ms: p?.lag_max_ms ?? null,
        busy: p?.busy ?? null,
      };
      this.link.broadcast(this.link.subjects.beat, b);
    };
    beat();
    this.beatTimer = setInterval(beat, 1000);
  }

  progress(p: ProgressSnapshot): void {
    this.latest = p;
  }

  /** Streams one record (with its worker index) to JetStream; stored in the background, in order of completion. */
  record(rec: RequestRecord): void {
    rec.node = this.node;
    this.published++;
    this.publisher.publish(this.link.subjects.records(this.node), encodeText(recordToJsonLine(rec)), recordKey(this.node, rec));
  }

  /** Waits until every record of the stage is stored, then publishes its dispatch lateness and "done". */
  async finish(o: Omit<Done, 'node' | 'records' | 'lag_chunks' | 'host' | 'clock'>, dispatchLagMs: Float64Array): Promise<number> {
    await this.publisher.drain();
    const chunks = Math.ceil(dispatchLagMs.length / LAG_CHUNK);
    for (let k = 0; k < chunks; k++) {
      const values = Array.from(dispatchLagMs.subarray(k * LAG_CHUNK, (k + 1) * LAG_CHUNK), (v) => Math.round(v * 1000) / 1000);
      await this.publisher.once(this.link.subjects.lag(this.node), encodeJson({ k, values, stage: o.stage }), `lag:${this.node}:${o.stage}:${k}`);
    }
    const done: Done = { ...o, node: this.node, records: this.published, lag_chunks: chunks, host: this.host, clock: this.clock ?? { offset_ms: 0, rtt_ms: 0, samples: 0 } };
    await this.publisher.once(this.link.subjects.done(this.node), encodeJson(done), `done:${this.node}:${o.stage}`);
    return this.published;
  }

  close(): void {
    if (this.beatTimer) clearInterval(this.beatTimer);
    this.beatTimer = null;
    this.controlSub?.unsubscribe();
    this.controlSub = null;
  }
}
