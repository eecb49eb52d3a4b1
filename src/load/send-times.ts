/**
 * When a run's requests are due: the trace's own timestamps when the workload replays one,
 * otherwise the seeded arrival schedule of the load spec, seen through its ramps (ramp.ts).
 */
import type { LoadSpec } from '../config/schema.js';
import type { TimedItem } from '../workload/types.js';
import { arrivalTimes, resolveArrivalKind } from './arrivals.js';
import { rampedTimes, type Ramp } from './ramp.js';

export function sendTimes(load: LoadSpec, timed: readonly TimedItem[] | undefined): Iterator<number> {
  if (timed) {
    let i = 0;
    return { next: () => (i < timed.length ? { done: false, value: timed[i++]!.at_ms } : { done: true, value: undefined }) };
  }
  const times = arrivalTimes({ rate: load.request_rate, burstiness: load.burstiness, kind: resolveArrivalKind(load.arrival, load.burstiness), seed: load.seed });
  return rampedTimes(times, loadRamp(load));
}

/** The ramps a load spec asks for. */
export function loadRamp(load: LoadSpec): Ramp {
  return { up_ms: load.ramp_up_ms, down_ms: load.ramp_down_ms, end_ms: load.duration_ms };
}
