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

/** The largest number among `values` (null when there is none). */
function worst(values: Array<number | null | undefined>): number | null {
  let out: number | null = null;
  for (const v of values) if (typeof v === 'number') out = Math.max(out ?? -Infinity, v);
  return out;
}

/**
 * One snapshot of several senders (worker threads, or a distributed run's nodes): counters add
 * up, elapsed is the furthest, and the worst sender speaks for the client's health. Null when
 * none has reported yet.
 */
export function mergeSnapshots(parts: readonly ProgressSnapshot[]): ProgressSnapshot | null {
  if (parts.length === 0) return null;
  const sum = (k: 'total' | 'sent' | 'done' | 'ok' | 'failed' | 'inflight' | 'queued' | 'output_tokens') => parts.reduce((n, p) => n + (p[k] ?? 0), 0);
  return {
    elapsed_ms: Math.max(...parts.map((p) => p.elapsed_ms)),
    total: parts[0]!.total === null ? null : sum('total'),
    duration_ms: parts[0]!.duration_ms,
    sent: sum('sent'),
    done: sum('done'),
    ok: sum('ok'),
    failed: sum('failed'),
    inflight: sum('inflight'),
    queued: sum('queued'),
    output_tokens: sum('output_tokens'),
    lag_max_ms: worst(parts.map((p) => p.lag_max_ms)),
    busy: worst(parts.map((p) => p.busy)),
  };
}
