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
  /** Entries served in the current pass, re-queued after it. */
  private readonly again: Entry[] = [];

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
   * One pass: every entry with due ≤ now emits one token and is re-queued at due + perTokenMs.
   * An entry emits at most one token per pass, so a server that fell behind catches up over
   * several passes with I/O in between instead of blocking the event loop with a burst.
   */
  private readonly tick = (): void => {
    this.timer = null;
    this.timerDue = Infinity;
    const now = this.now();
    const heap = this.heap;
    const first = heap.peek();
    if (first && first.due <= now) this.lateness.record(now - first.due);
    const again = this.again;
    let e = heap.peek();
    while (e && e.due <= now) {
      heap.pop();
      if (!e.cancelled) {
        e.sink.onToken(e.k, e.due);
        e.k++;
        if (e.cancelled) {
          // the sink cancelled itself (fault injection, write error): drop it
        } else if (e.k >= e.req.outputTokens) {
          this.live.delete(e.req.id);
          e.sink.onDone(e.due);
        } else {
          e.due += this.perTokenMs;
          again.push(e);
        }
      }
      e = heap.peek();
    }
    for (let i = 0; i < again.length; i++) heap.push(again[i] as Entry);
    again.length = 0;
    this.arm();
  };
}
