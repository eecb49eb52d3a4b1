/**
 * When a run's requests are due: the trace's own timestamps when the workload replays one,
 * otherwise the seeded arrival schedule of the load spec.
 */
import type { LoadSpec } from '../config/schema.js';
import type { TimedItem } from '../workload/types.js';
import { arrivalTimes, resolveArrivalKind } from './arrivals.js';

export function sendTimes(load: LoadSpec, timed: readonly TimedItem[] | undefined): Iterator<number> {
  if (timed) {
    let i = 0;
    return { next: () => (i < timed.length ? { done: false, value: timed[i++]!.at_ms } : { done: true, value: undefined }) };
  }
  return arrivalTimes({ rate: load.request_rate, burstiness: load.burstiness, kind: resolveArrivalKind(load.arrival, load.burstiness), seed: load.seed });
}
