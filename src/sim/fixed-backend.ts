/**
 * Fixed timing: first token at arrival + prefillMs, then one token every perTokenMs, with
 * unlimited concurrency. Due times are absolute (arrival + prefill + k·perToken), so timer
 * lateness never accumulates; every stream due at a tick is served in one pass.
 */
import type { Backend, BackendStats, GenRequest, TokenSink } from './backend.js';
import { DueHeap } from './due-heap.js';
import { LatenessStats } from './lateness.js';

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
  private timerDue = Infinity;
  private closed = false;
  readonly lateness = new LatenessStats();

  constructor(
    private readonly prefillMs: number,
    private readonly perTokenMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

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
    return { running: this.live.size, waiting: 0, kvUsage: 0, preemptions: 0, prefixQueries: 0, prefixHits: 0, numBlocks: 0, blockSize: 16 };
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.heap.clear();
    this.live.clear();
  }

  private arm(): void {
    const top = this.heap.peek();
    if (!top || this.closed) return;
    if (this.timer && this.timerDue <= top.due) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerDue = top.due;
    this.timer = setTimeout(this.tick, Math.max(0, top.due - this.now()));
  }

  /**
   * One pass: every entry with due ≤ now emits its due tokens (normally one; several when the
   * server fell behind, then written together by one flush) and is re-queued at its next due.
   */
  private readonly tick = (): void => {
    this.timer = null;
    this.timerDue = Infinity;
    const now = this.now();
    const heap = this.heap;
    const first = heap.peek();
    if (first && first.due <= now) this.lateness.record(now - first.due);
    const n = this.perTokenMs;
    let e = heap.peek();
    while (e && e.due <= now) {
      heap.pop();
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
      e = heap.peek();
    }
    this.arm();
  };
}
