/**
 * Phases: warmup and cooldown requests run like any other but are excluded from figures.
 * A request's phase is fixed when it is dispatched, from its index and scheduled time.
 */
import type { Phase } from '../record/record.js';

export type Boundary = { requests: number } | { duration_ms: number };

export interface PhasePlan {
  warmup: Boundary;
  cooldown: Boundary;
  /** Total requests when the run stops by count. */
  totalRequests: number | null;
  /** Run length when the run stops by time. */
  durationMs: number | null;
}

export function phaseOf(plan: PhasePlan, index: number, scheduledMs: number): Phase {
  const w = plan.warmup;
  if ('requests' in w ? index < w.requests : scheduledMs < w.duration_ms) return 'warmup';
  const c = plan.cooldown;
  if ('requests' in c) {
    if (c.requests > 0 && plan.totalRequests !== null && index >= plan.totalRequests - c.requests) return 'cooldown';
  } else if (c.duration_ms > 0 && plan.durationMs !== null && scheduledMs >= plan.durationMs - c.duration_ms) {
    return 'cooldown';
  }
  return 'measure';
}

/** Checks the plan leaves something to measure; returns a problem description or null. */
export function phasePlanProblem(plan: PhasePlan): string | null {
  const c = plan.cooldown;
  if ('duration_ms' in c && c.duration_ms > 0 && plan.durationMs === null) {
    return '--cooldown as a duration needs --duration; with --num-prompts give a request count';
  }
  if (plan.totalRequests !== null) {
    const w = 'requests' in plan.warmup ? plan.warmup.requests : 0;
    const cd = 'requests' in c ? c.requests : 0;
    if (w + cd >= plan.totalRequests) return `--warmup + --cooldown (${w + cd} requests) leave nothing of --num-prompts ${plan.totalRequests} to measure`;
  }
  if (plan.durationMs !== null) {
    const w = 'duration_ms' in plan.warmup ? plan.warmup.duration_ms : 0;
    const cd = 'duration_ms' in c ? c.duration_ms : 0;
    if (w + cd >= plan.durationMs) return '--warmup + --cooldown leave nothing of --duration to measure';
  }
  return null;
}
