/** Counters the runner keeps for progress displays; a snapshot is emitted once a second. */
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
}

export type ProgressListener = (p: ProgressSnapshot) => void;
