/**
 * Counters the runner keeps for progress displays; a snapshot is emitted once a second, from a
 * timer, never per request: the hot path only bumps the counters.
 */
export interface ProgressSnapshot {
  elapsed_ms: number;
  /** Planned total requests, or null when the run stops by time. */
  total: number | null;
  duration_ms: number | null;
  sent: number;
  done: number;
  ok: number;
  failed: number;
  inflight: number;
  /** Requests waiting for a --max-concurrency slot. */
  queued: number;
  output_tokens: number;
  /**
   * The client's own health since the previous snapshot, for the live validity state (optional:
   * older senders and `sim run` have none): the worst dispatcher lateness (ms; null when nothing
   * was dispatched on a schedule) and the sending thread's event-loop utilization (null under
   * --busy-poll, whose loop is always busy).
   */
  lag_max_ms?: number | null;
  busy?: number | null;
}

export type ProgressListener = (p: ProgressSnapshot) => void;
