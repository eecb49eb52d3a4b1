/**
 * What the live view shows, computed on the coordinating thread from the records as they
 * arrive and the runner's once-a-second snapshots — never in the senders. Latency percentiles
 * and rates are over a trailing window of completions (by end_ms, on the run's clock), so they
 * say how the server is doing now, not on average since the start.
 */
import { DEFAULT_VALIDITY_THRESHOLDS } from '../analysis/run-validity.js';
import { percentile } from '../metrics/index.js';
import type { RequestRecord } from '../record/record.js';
import type { ProgressSnapshot } from '../runner/progress.js';

/** One frame of the live view; also what a run appends to progress.jsonl for the dashboard. */
export interface LiveFrame {
  elapsed_ms: number;
  /** Planned requests (null: the run stops by time). */
  total: number | null;
  duration_ms: number | null;
  /** 0..1 of the planned requests or duration, whichever is further; null when neither is known. */
  fraction: number | null;
  /** Until the duration ends, or the planned requests at the current completion rate; null when unknown. */
  remaining_ms: number | null;
  sent: number;
  done: number;
  ok: number;
  failed: number;
  failed_by_class: Record<string, number>;
  inflight: number;
  queued: number;
  output_tokens: number;
  /** The trailing window the rates and percentiles below cover (shorter at the start of a run). */
  window_s: number;
  request_rate: number;
  output_tokens_per_s: number;
  ttft_p50_ms: number | null;
  ttft_p99_ms: number | null;
  tpot_p50_ms: number | null;
  tpot_p99_ms: number | null;
  /**
   * Answer checks judged so far (issue 15): `answered` of them had an answer, `passed` of those
   * passed. Null until the first check is judged (a run without checks stays null). Checks are
   * judged after their request ends, so these trail `done` a little.
   */
  quality?: { judged: number; answered: number; passed: number } | null;
  /** The client's side of the validity verdict, as it stands now. */
  client: { state: 'ok' | 'at risk' | 'unknown'; reason: string | null; lag_max_ms: number | null; busy: number | null };
}

export const LIVE_WINDOW_MS = 10_000;

interface Done {
  end_ms: number;
  ok: boolean;
  ttft: number | null;
  tpot: number | null;
  tokens: number;
}

export class LiveStats {
  private snapshot: ProgressSnapshot | null = null;
  /** Completions in end_ms order within the window (records arrive roughly in completion order). */
  private recent: Done[] = [];
  private counts = { done: 0, ok: 0, failed: 0, output_tokens: 0 };
  private readonly byClass: Record<string, number> = {};
  private quality: { judged: number; answered: number; passed: number } | null = null;
  private lagMax: number | null = null;
  private busy: number | null = null;

  constructor(
    private readonly opts: { windowMs?: number; burst?: boolean } = {},
  ) {}

  record(r: RequestRecord): void {
    const ok = r.status === 'ok';
    this.counts.done++;
    if (ok) {
      this.counts.ok++;
      this.counts.output_tokens += r.output_tokens;
    } else {
      this.counts.failed++;
      const cls = r.error_class ?? r.status;
      this.byClass[cls] = (this.byClass[cls] ?? 0) + 1;
    }
    const ttft = ok && r.first_token_ms !== null ? r.first_token_ms - r.sent_ms : null;
    const tpot = ok && r.first_token_ms !== null && r.output_tokens > 1 ? (r.end_ms - r.first_token_ms) / (r.output_tokens - 1) : null;
    const d: Done = { end_ms: r.end_ms, ok, ttft, tpot, tokens: ok ? r.output_tokens : 0 };
    // Keep end_ms order: a record from another worker may end slightly before the last one.
    let i = this.recent.length;
    while (i > 0 && this.recent[i - 1]!.end_ms > d.end_ms) i--;
    this.recent.splice(i, 0, d);
  }

  /** A record whose answer check has been judged (record.quality set). */
  judged(r: RequestRecord): void {
    if (r.quality === undefined || r.phase !== 'measure' || r.retried === true) return;
    const q = (this.quality ??= { judged: 0, answered: 0, passed: 0 });
    q.judged++;
    if (r.status === 'ok') {
      q.answered++;
      if (r.quality.pass) q.passed++;
    }
  }

  update(p: ProgressSnapshot): void {
    this.snapshot = p;
    if (p.lag_max_ms !== undefined) this.lagMax = p.lag_max_ms;
    if (p.busy !== undefined) this.busy = p.busy;
  }

  /** The frame as of the latest snapshot or completion, whichever is later on the run's clock. */
  frame(): LiveFrame {
    const p = this.snapshot;
    const last = this.recent.length ? this.recent[this.recent.length - 1]!.end_ms : 0;
    const now = Math.max(p?.elapsed_ms ?? 0, last);
    const windowMs = this.opts.windowMs ?? LIVE_WINDOW_MS;
    const from = now - windowMs;
    let drop = 0;
    while (drop < this.recent.length && this.recent[drop]!.end_ms <= from) drop++;
    if (drop > 0) this.recent.splice(0, drop);
    const spanS = Math.min(windowMs, now) / 1000;
    const ttft: number[] = [];
    const tpot: number[] = [];
    let tokens = 0;
    for (const d of this.recent) {
      if (d.ttft !== null) ttft.push(d.ttft);
      if (d.tpot !== null) tpot.push(d.tpot);
      tokens += d.tokens;
    }
    ttft.sort((a, b) => a - b);
    tpot.sort((a, b) => a - b);
    const rate = spanS > 0 ? this.recent.length / spanS : 0;

    const total = p?.total ?? null;
    const duration = p?.duration_ms ?? null;
    let fraction: number | null = total ? this.counts.done / total : null;
    if (duration) fraction = Math.max(fraction ?? 0, Math.min(1, now / duration));
    let remaining: number | null = null;
    if (duration) remaining = Math.max(0, duration - now);
    else if (total && rate > 0) remaining = ((total - this.counts.done) / rate) * 1000;

    const sent = p?.sent ?? this.counts.done;
    return {
      elapsed_ms: now,
      total,
      duration_ms: duration,
      fraction,
      remaining_ms: remaining,
      sent,
      done: this.counts.done,
      ok: this.counts.ok,
      failed: this.counts.failed,
      failed_by_class: { ...this.byClass },
      // The snapshot's own count is up to a second old; completions are current.
      inflight: p ? Math.max(0, p.sent - this.counts.done) : 0,
      queued: p?.queued ?? 0,
      output_tokens: this.counts.output_tokens,
      window_s: spanS,
      request_rate: rate,
      output_tokens_per_s: spanS > 0 ? tokens / spanS : 0,
      ttft_p50_ms: ttft.length ? percentile(ttft, 50) : null,
      ttft_p99_ms: ttft.length ? percentile(ttft, 99) : null,
      tpot_p50_ms: tpot.length ? percentile(tpot, 50) : null,
      tpot_p99_ms: tpot.length ? percentile(tpot, 99) : null,
      quality: this.quality ? { ...this.quality } : null,
      client: this.clientState(),
    };
  }

  private clientState(): LiveFrame['client'] {
    const t = DEFAULT_VALIDITY_THRESHOLDS;
    const lag = this.lagMax;
    const busy = this.busy;
    if (lag === null && busy === null) return { state: 'unknown', reason: null, lag_max_ms: null, busy: null };
    let reason: string | null = null;
    if (!this.opts.burst && lag !== null && lag > t.dispatchLagP99Ms) reason = `behind schedule: dispatch lag up to ${lag.toFixed(1)} ms (> ${t.dispatchLagP99Ms} ms)`;
    else if (busy !== null && busy > t.eventLoopUtilization) reason = `sender busy ${(busy * 100).toFixed(0)}% of the time (> ${(t.eventLoopUtilization * 100).toFixed(0)}%)`;
    return { state: reason ? 'at risk' : 'ok', reason, lag_max_ms: lag, busy };
  }
}
