/**
 * The worker's clock against the coordinator's, NTP-style: ask the time k times, and of the
 * answers keep the one with the shortest round trip, assuming the reply was stamped half-way.
 * The error of that estimate is at most half its round trip.
 */
import type { ClockEstimate } from './protocol.js';

export interface ClockSample {
  /** Worker clock when the request left (epoch ms). */
  sent_ms: number;
  /** Coordinator clock when it answered (epoch ms). */
  remote_ms: number;
  /** Worker clock when the answer came back. */
  received_ms: number;
}

export function estimateOffset(samples: readonly ClockSample[]): ClockEstimate {
  let best: ClockSample | null = null;
  for (const s of samples) if (best === null || s.received_ms - s.sent_ms < best.received_ms - best.sent_ms) best = s;
  if (best === null) throw new Error('no clock samples');
  return { offset_ms: best.remote_ms - (best.sent_ms + best.received_ms) / 2, rtt_ms: best.received_ms - best.sent_ms, samples: samples.length };
}

/** Epoch milliseconds with sub-millisecond resolution (monotonic within the process). */
export function epochNowMs(): number {
  return performance.timeOrigin + performance.now();
}
