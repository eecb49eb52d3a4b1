/**
 * What every executor (open loop, closed loop, sessions) shares: the clock, stop conditions,
 * counters for progress, and `launch`, which sends one request and records its completion.
 * An executor only decides *when* to call launch.
 */
import { phaseOf, type PhaseBounds } from '../load/phases.js';
import { emptyRecord, type Clock, type RequestRecord } from '../record/record.js';
import type { WorkItem } from '../workload/types.js';
import { FloatBuffer } from '../util/byte-buffer.js';
import type { ProgressSnapshot } from './progress.js';
import type { Shard } from './shard.js';
import { spinFor } from '../util/spin.js';
import { busyPolling } from './busy-poll.js';
import { retryDelayMs, shouldRetry, type RetryPolicy } from './retry-policy.js';
import { onAbort } from '../util/on-abort.js';

/** The answer check a request carries (issue 15, docs/quality.md). */
export type AnswerCheck = NonNullable<WorkItem['check']>;

/**
 * Receives each finished record, with the answer check its request carried (if any): the check
 * travels beside the record, not in it, so the coordinator can evaluate it off the dispatch loop.
 */
export type RecordSink = (rec: RequestRecord, check?: AnswerCheck) => void;

/** What the loop needs of a target: prepare a request ahead of time, send it, cancel all. */
export interface Sender<P = unknown> {
  prepare(item: WorkItem): P;
  send(rec: RequestRecord, prepared: P): Promise<RequestRecord>;
  cancelAll(): void;
}

/** How long before a due time the timer wakes the loop (see sleepUntil). */
const TIMER_SLACK_MS = 1.5;
/** Longest busy-wait between two yields to I/O in the last stretch before a due time. */
const SPIN_SLICE_MS = 0.02;

export class LoopContext {
  readonly records: RequestRecord[] = [];
  readonly pending = new Set<Promise<RequestRecord>>();
  /** Dispatcher lateness: when the loop reached a request minus when it was due. */
  readonly dispatchLag = new FloatBuffer(1024);
  readonly stats: ProgressSnapshot;
  private readonly stopper = new AbortController();
  /** Aborted when in-flight requests are cancelled (grace over, Ctrl-C): no more retries. */
  private readonly retriesOff = new AbortController();
  private readonly sleepers = new Set<() => void>();
  /** Woken by the next completion (see nextCompletion). */
  private completionWaiters: Array<() => void> = [];

  constructor(
    readonly clock: Clock,
    readonly sender: Sender,
    private readonly phases: PhaseBounds,
    readonly shard: Shard,
    /** Requests of this shard before it stops (null: by time only). */
    readonly totalRequests: number | null,
    readonly durationMs: number | null,
    private readonly onRecord: RecordSink,
    /** Closed loop: a request is due when it is sent. */
    private readonly dueWhenSent: boolean,
    /** Keep finished records in `records` (callers that stream them elsewhere say no, to save memory). */
    private readonly keepRecords = true,
    /** --retries: null sends each request once. */
    private readonly retry: RetryPolicy | null = null,
  ) {
    this.stats = { elapsed_ms: 0, total: totalRequests, duration_ms: durationMs, sent: 0, done: 0, ok: 0, failed: 0, inflight: 0, queued: 0, output_tokens: 0 };
  }

  get stopped(): boolean {
    return this.stopper.signal.aborted;
  }

  /** Stop dispatching; wakes every executor sleeping in `sleep()`. */
  stop(): void {
    this.stopper.abort();
    for (const wake of [...this.sleepers]) wake();
  }

  /** In-flight requests are being cancelled: a request waiting to retry ends with its failed attempt. */
  cancelRetries(): void {
    this.retriesOff.abort();
  }

  /**
   * Sleeps `ms`, or less if the run stops meanwhile (or `signal`, when given, aborts). Sleepers on
   * the run's stop wait in a set rather than as abort listeners: hundreds of conversations thinking
   * at once are normal, not a listener leak.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal === undefined) {
      if (this.stopped) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.sleepers.delete(done);
          resolve();
        };
        const timer = setTimeout(done, Math.max(0, ms));
        this.sleepers.add(done);
      });
    }
    if (signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        detach();
        resolve();
      }, Math.max(0, ms));
      const detach = onAbort(signal, () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * Sleeps until the clock reads `due`. A timer fires on a millisecond tick, up to ~1 ms late,
   * so it is set to wake just before and the last stretch is busy-waited, yielding to I/O every
   * ~20 µs so responses are still read and timestamped meanwhile. Yielding on every loop turn
   * instead made an immediate and a promise of garbage per turn, and the collections it caused
   * paused the thread for milliseconds (util/spin.ts; figures in docs/performance.md).
   */
  async sleepUntil(due: number): Promise<void> {
    const early = due - this.clock() - TIMER_SLACK_MS;
    if (early > 0) await this.sleep(early);
    while (!this.stopped) {
      const left = due - this.clock();
      if (left <= 0) return;
      if (left <= SPIN_SLICE_MS) spinFor(left);
      else {
        // Under --busy-poll every loop turn already spends a slice spinning: not twice.
        if (!busyPolling()) spinFor(SPIN_SLICE_MS);
        await new Promise<void>((r) => setImmediate(r));
      }
    }
  }

  countReached(localCount: number): boolean {
    return this.totalRequests !== null && localCount >= this.totalRequests;
  }

  timeUp(t = this.clock()): boolean {
    return this.durationMs !== null && t >= this.durationMs;
  }

  /** A record for the run-wide `index`, with its phase and worker set. */
  newRecord(index: number, scheduledMs: number): RequestRecord {
    const rec = emptyRecord(index, scheduledMs);
    rec.phase = phaseOf(this.phases, index, scheduledMs);
    rec.worker = this.shard.offset;
    return rec;
  }

  /**
   * Sends `item`. `beforeRecord` sees the finished record before it is recorded (sessions read
   * the reply text there, then drop it unless text is kept).
   */
  launch(rec: RequestRecord, item: WorkItem, beforeRecord?: (r: RequestRecord) => void): Promise<RequestRecord> {
    return this.launchPrepared(rec, this.sender.prepare(item), beforeRecord, item.check);
  }

  /** As launch, for a request prepared ahead of its due time (`check`: the item's answer check). */
  launchPrepared(rec: RequestRecord, prepared: unknown, beforeRecord?: (r: RequestRecord) => void, check?: AnswerCheck): Promise<RequestRecord> {
    this.stats.sent++;
    this.stats.inflight++;
    const sent = this.retry !== null && this.retry.retries > 0 ? this.sendWithRetries(rec, prepared, this.retry) : this.sender.send(rec, prepared);
    const p: Promise<RequestRecord> = sent.then((r) => {
      if (this.dueWhenSent) r.scheduled_ms = r.sent_ms;
      beforeRecord?.(r);
      this.complete(r, check);
      this.pending.delete(p);
      const waiters = this.completionWaiters;
      if (waiters.length > 0) {
        this.completionWaiters = [];
        for (const wake of waiters) wake();
      }
      return r;
    });
    this.pending.add(p);
    return p;
  }

  /**
   * Sends `rec`, then again while the attempt failed before any output and retries remain. A
   * superseded attempt is recorded (retried = true) but not counted as done; the request stays
   * in flight until its last attempt. Cancellation during the backoff makes the failed attempt final.
   */
  private async sendWithRetries(rec: RequestRecord, prepared: unknown, policy: RetryPolicy): Promise<RequestRecord> {
    const off = this.retriesOff.signal;
    let r = await this.sender.send(rec, prepared);
    // Retries go on after dispatch stops (a count run drains, a duration run has its grace), not after cancellation.
    while (shouldRetry(r, policy) && !off.aborted) {
      await this.sleep(retryDelayMs(r, policy), off);
      if (off.aborted) break;
      r.retried = true;
      if (this.keepRecords) this.records.push(r);
      this.onRecord(r);
      const next = emptyRecord(r.id, r.scheduled_ms);
      next.phase = r.phase;
      next.stage = r.stage;
      next.worker = r.worker;
      next.task = r.task;
      next.session = r.session;
      next.turn = r.turn;
      next.attempt = (r.attempt ?? 0) + 1;
      r = await this.sender.send(next, prepared);
    }
    return r;
  }

  /**
   * Resolves when the next in-flight request completes (at once when none is in flight).
   * Waiting with Promise.race over `pending` instead would attach a reaction to every request
   * in flight on every wake-up — quadratic in memory and time, and with thousands of streams
   * in flight the garbage collector's pauses then showed up in the measured ITL.
   */
  nextCompletion(): Promise<void> {
    if (this.pending.size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.completionWaiters.push(resolve));
  }

  /** Resolves when nothing is in flight. */
  async drained(): Promise<void> {
    while (this.pending.size > 0) await this.nextCompletion();
  }

  /** Records a finished (or never-sent) request. */
  complete(rec: RequestRecord, check?: AnswerCheck): void {
    const s = this.stats;
    s.inflight--;
    s.done++;
    if (rec.status === 'ok') s.ok++;
    else s.failed++;
    s.output_tokens += rec.output_tokens;
    if (this.keepRecords) this.records.push(rec);
    this.onRecord(rec, check);
  }

  /** Records a request that was scheduled but never sent, as cancelled: nothing scheduled disappears. */
  completeUnsent(rec: RequestRecord, message: string): void {
    rec.sent_ms = rec.end_ms = this.clock();
    rec.status = 'cancelled';
    rec.error_class = 'cancelled';
    rec.error_message = message;
    this.stats.inflight++;
    this.complete(rec);
  }
}
