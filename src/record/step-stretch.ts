/**
 * A record whose chunk times are a stretch of a timeline shared by many records: in virtual
 * time every token is stamped with the end of the step that made it, and a decoding sequence
 * gets one at every step, so its chunk_ms is steps first … first+count−1 of the run's step
 * timeline. Figures pooled over chunk gaps (ITL) can then be computed per step — the gap
 * t[k] − t[k−1] once, weighted by how many records span it — instead of once per token, over
 * the same multiset of values. A record carries its stretch under STEP_STRETCH (the columnar
 * store of virtual runs, src/sim/virtual-records.ts); a plain record has none.
 */
import type { RequestRecord } from './record.js';

/** Step end times, strictly increasing. */
export interface SharedTimeline {
  readonly length: number;
  at(i: number): number;
}

export interface StepStretch {
  readonly timeline: SharedTimeline;
  readonly first: number;
  /** = chunk_ms.length; chunk_ms[i] = timeline.at(first + i). */
  readonly count: number;
}

export const STEP_STRETCH: unique symbol = Symbol('infermeter.stepStretch');

/** The record's stretch of a shared timeline, or null when its chunk times are its own. */
export function stepStretchOf(r: RequestRecord): StepStretch | null {
  return (r as { [STEP_STRETCH]?: StepStretch | null })[STEP_STRETCH] ?? null;
}
