/**
 * Throughput over the window in which the load was offered: first send → last send of the
 * measure phase. The headline throughputs divide by the measured window (first send → last end,
 * as vLLM's benchmark duration does); one straggler — a stream that stalls for a minute — can
 * stretch that window far past the load and halve every figure. Over the offered window the same
 * ok requests' output counts only as far as it arrived inside it, so a straggler costs at most
 * its own share. Rule and example: docs/metrics.md §Throughput.
 */
import type { RequestRecord } from '../record/record.js';
import type { TimeSpan } from './run-totals.js';
import { chunkCount, chunksAtMost, ChunkTimes } from '../record/record-columns.js';

const chunkTimes = new ChunkTimes();

export interface OfferedWindow {
  start_ms: number;
  /** The last measure-phase send. */
  end_ms: number;
  duration_s: number;
  /** ok requests that ended inside the offered window / its duration. */
  request_per_s: number;
  /** Output tokens of ok requests that arrived inside it (each chunk weighs output_tokens / chunks; no chunks: all at end_ms) / its duration. */
  output_tokens_per_s: number;
  /** Measure-phase requests that ended after it (by themselves, not cancelled): what stretched the measured window. */
  ended_after: number;
  /** Measured window duration / offered window duration (≥ 1). */
  stretch: number;
}

/** Shorter offered spans (everything sent at once, a handful of requests) give no figure. */
export const MIN_OFFERED_MS = 1000;

/** Null when the offered span is shorter than MIN_OFFERED_MS or there is no window. */
export function offeredWindow(measure: readonly RequestRecord[], window: TimeSpan | null): OfferedWindow | null {
  if (window === null || measure.length === 0) return null;
  let lastSend = -Infinity;
  for (const r of measure) lastSend = Math.max(lastSend, r.sent_ms);
  const span = lastSend - window.start_ms;
  if (span < MIN_OFFERED_MS) return null;
  let ok = 0;
  let tokens = 0;
  let after = 0;
  for (const r of measure) {
    if (r.retried) continue; // a request's figures are its last attempt's
    if (r.status !== 'cancelled' && r.end_ms > lastSend) after++;
    if (r.status !== 'ok') continue;
    if (r.end_ms <= lastSend) ok++;
    const n = chunkCount(r);
    if (n === 0) {
      if (r.end_ms <= lastSend) tokens += r.output_tokens;
      continue;
    }
    tokens += (r.output_tokens * chunksAtMost(r, lastSend, chunkTimes)) / n;
  }
  const s = span / 1000;
  return {
    start_ms: window.start_ms,
    end_ms: lastSend,
    duration_s: s,
    request_per_s: ok / s,
    output_tokens_per_s: tokens / s,
    ended_after: after,
    stretch: (window.end_ms - window.start_ms) / span,
  };
}
