/**
 * Fixed timing: first token at arrival + prefillMs, then one token every perTokenMs, with
 * unlimited concurrency. Due times are absolute (arrival + prefill + k·perToken), so timer
 * lateness never accumulates; every stream due at a tick is served in one pass. A pass that
 * starts over LATE_STEP_MS after its earliest due token counts as a late step (late-steps.ts),
 * as an engine step does: the process, not the timing, was slow.
 */
import type { Backend, BackendStats, GenRequest, TokenSink } from './backend.js';
import { DueHeap } from './due-heap.js';
import { LatenessStats } from './lateness.js';
import { LateSteps } from './late-steps.js';

/** Longest pass before yielding to I/O (ms): bounds how long accepts and reads can wait. */
const MAX_PASS_MS = 5;

interface Entry {
  due: number;
  k: number;
  req: GenRequest;
  sink: TokenSink;
  cancelled: boolean;
}

export class FixedBackend implements Backend {
  private readonly heap = new DueHeap<Entry>();
  private readonly live = new Map<number, Entry>();
  private timer: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;
  private timerDue = Infinity;
  private closed = false;
  readonly lateness = new LatenessStats();
  /** Passes that served tokens over LATE_STEP_MS after they were due, for /metrics and the warning. */
  readonly lateSteps: LateSteps;

  constructor(
    private readonly prefillMs: number,
    private readonly perTokenMs: number,
    private readonly now: () => number = () => performance.now(),
    warn: (line: string) => void = () => {},
  ) {
    this.lateSteps = new LateSteps(warn);
  }

  submit(req: GenRequest, sink: TokenSink): void {
    if (this.closed) return;
    const e: Entry = { due: req.arrivalMs + this.prefillMs, k: 0, req, sink, cancelled: false };
    sink.onAdmit(req.arrivalMs);
    if (req.outputTokens <= 0) {
      sink.onDone(req.arrivalMs);
      return;
    }
    this.live.set(req.id, e);
    this.heap.push(e);
    this.arm();
  }

  cancel(id: number): void {
    const e = this.live.get(id);
    if (e) {
      e.cancelled = true;
      this.live.delete(id);
    }
  }

  stats(): BackendStats {
    return { running: this.live.size, waiting: 0, kvUsage: 0, preemptions: 0, prefixQueries: 0, prefixHits: 0, numBlocks: 0, blockSize: 16, lateSteps: this.lateSteps.total };
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = null;
    this.immediate = null;
    this.heap.clear();
    this.live.clear();
  }

  /** Wakes at the earliest due time; at once (setImmediate, no 1 ms timer floor) when overdue. */
  private arm(): void {
    const top = this.heap.peek();
    if (!top || this.closed || this.immediate) return;
    const delay = top.due - this.now();
    if (delay <= 0) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.timerDue = Infinity;
      this.immediate = setImmediate(this.tick);
      return;
    }
    if (this.timer && this.timerDue <= top.due) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerDue = top.due;
    this.timer = setTimeout(this.tick, delay);
  }

  /**
   * One pass: every entry due by now emits its due tokens (normally one; several when the
   * server fell behind, then written together by one flush) and is re-queued at its next due.
   * `now` is refreshed as the pass goes, so tokens falling due during a long pass are served
   * in it rather than after another timer; a pass yields to I/O after MAX_PASS_MS.
   * Lateness is recorded per stream served: (time served − due time).
   */
  private readonly tick = (): void => {
    this.timer = null;
    this.timerDue = Infinity;
    this.immediate = null;
    const heap = this.heap;
    const n = this.perTokenMs;
    const start = this.now();
    let now = start;
    let served = 0;
    let e = heap.peek();
    // The heap's top is the pass's earliest due token: the pass is as late as it is.
    if (e && e.due <= now) this.lateSteps.observe(now - e.due, now);
    while (e && e.due <= now) {
      heap.pop();
      this.lateness.record(now - e.due);
      const sink = e.sink;
      const last = e.req.outputTokens;
      while (!e.cancelled && e.k < last && e.due <= now) {
        sink.onToken(e.k, e.due);
        e.k++;
        if (e.k < last) e.due += n;
      }
      // (a sink may cancel itself during onToken: fault injection, write error)
      if (!e.cancelled) {
        sink.flush();
        if (e.k >= last) {
          this.live.delete(e.req.id);
          sink.onDone(e.due);
        } else {
          heap.push(e);
        }
      }
      if ((++served & 15) === 0) {
        now = this.now();
        if (now - start > MAX_PASS_MS) break;
      }
      e = heap.peek();
    }
    this.arm();
  };
}
