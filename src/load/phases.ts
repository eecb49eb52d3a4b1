/**
 * Phases: ramp, warmup and cooldown requests run like any other but are excluded from figures.
 * A request's phase is fixed when it is dispatched, from its index and scheduled time.
 *
 * In time: ramp_up [0, U) · warmup · measure · cooldown · ramp_down [E − D, E). A warm-up or
 * cool-down given as a duration sits between the ramps (the warm-up starts when the ramp-up
 * ends), so the load is at its target for all of them.
 */
import type { Phase } from '../record/record.js';
import { rampDownStart, type Ramp } from './ramp.js';

export type Boundary = { requests: number } | { duration_ms: number };

/** Where each phase begins and ends: what `phaseOf` needs to place a request. */
export interface PhaseBounds {
  warmup: Boundary;
  cooldown: Boundary;
  /** Total requests when the run stops by count. */
  totalRequests: number | null;
  /** Run length when the run stops by time. */
  durationMs: number | null;
  /** --ramp-up / --ramp-down (absent: none). */
  ramp?: Ramp;
}

export function phaseOf(bounds: PhaseBounds, index: number, scheduledMs: number): Phase {
  const up = bounds.ramp?.up_ms ?? 0;
  if (scheduledMs < up) return 'ramp_up';
  const downAt = bounds.ramp ? rampDownStart(bounds.ramp) : Infinity;
  if (scheduledMs >= downAt) return 'ramp_down';
  const w = bounds.warmup;
  if ('requests' in w ? index < w.requests : scheduledMs < up + w.duration_ms) return 'warmup';
  const c = bounds.cooldown;
  if ('requests' in c) {
    if (c.requests > 0 && bounds.totalRequests !== null && index >= bounds.totalRequests - c.requests) return 'cooldown';
  } else if (c.duration_ms > 0 && bounds.durationMs !== null && scheduledMs >= Math.min(downAt, bounds.durationMs) - c.duration_ms) {
    return 'cooldown';
  }
  return 'measure';
}

/** Checks the bounds leave something to measure; returns a problem description or null. */
export function phaseBoundsProblem(bounds: PhaseBounds): string | null {
  const c = bounds.cooldown;
  if ('duration_ms' in c && c.duration_ms > 0 && bounds.durationMs === null) {
    return '--cooldown as a duration needs --duration; with --num-prompts give a request count';
  }
  if (bounds.totalRequests !== null) {
    const w = 'requests' in bounds.warmup ? bounds.warmup.requests : 0;
    const cd = 'requests' in c ? c.requests : 0;
    if (w + cd >= bounds.totalRequests) return `--warmup + --cooldown (${w + cd} requests) leave nothing of --num-prompts ${bounds.totalRequests} to measure`;
  }
  const r = bounds.ramp;
  if (r && r.up_ms > 0 && 'requests' in bounds.warmup && bounds.warmup.requests > 0) {
    return '--warmup as a request count with --ramp-up: give it as a duration (e.g. 30s; it starts when the ramp-up ends)';
  }
  if (r && r.down_ms > 0 && 'requests' in c && c.requests > 0) {
    return '--cooldown as a request count with --ramp-down: give it as a duration (it ends where the ramp-down starts)';
  }
  if (bounds.durationMs !== null) {
    const w = 'duration_ms' in bounds.warmup ? bounds.warmup.duration_ms : 0;
    const cd = 'duration_ms' in c ? c.duration_ms : 0;
    const ramps = (r?.up_ms ?? 0) + (r?.down_ms ?? 0);
    if (w + cd + ramps >= bounds.durationMs) {
      return ramps > 0 ? '--ramp-up + --ramp-down + --warmup + --cooldown leave nothing of --duration to measure' : '--warmup + --cooldown leave nothing of --duration to measure';
    }
  }
  return null;
}
