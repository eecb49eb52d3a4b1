/**
 * Ramps: the load rises linearly from zero to its target over `up_ms` at the start of a run and
 * falls linearly back to zero over the last `down_ms` of `end_ms` (k6's ramping-arrival-rate and
 * ramping-vus executors do the same). Pure functions of the plan, no clock.
 *
 * Open loop. With target rate λ the ramped rate is
 *
 *   λ(t) = λ·t/U              0 ≤ t < U                (U = up_ms)
 *        = λ                  U ≤ t < E − D            (E = end_ms, D = down_ms)
 *        = λ·(E − t)/D        E − D ≤ t < E
 *
 * and its integral Λ(t) = λ·W(t), where W(t) is the time a constant-rate schedule needs to
 * expect as many arrivals as the ramped one by t:
 *
 *   W(t) = t²/(2U)                                     t < U
 *        = t − U/2                                     U ≤ t < E − D
 *        = (E − D − U/2) + x − x²/(2D),  x = t − (E−D)  E − D ≤ t ≤ E
 *
 * A non-homogeneous process with rate λ(t) is the constant-rate process seen through the
 * inverse clock: its k-th arrival is at W⁻¹(s_k), where s_k is the k-th arrival of the unramped
 * schedule (same seed, same gaps). So a constant schedule becomes "the k-th request when the
 * integrated rate reaches k" (k6's rule) and Poisson/gamma keep their distribution in the
 * integrated-rate clock. Arrivals past E (W ≥ E − U/2 − D/2) do not exist.
 *
 * Closed loop. With N users, user k (0 ≤ k < N, the global index, so worker threads keep it)
 * starts at U·k/N and sends no new request from E − D·k/N on: the number of users is N·t/U
 * rounded up during the ramp-up and N·(E − t)/D rounded up during the ramp-down.
 */

export interface Ramp {
  /** Length of the ramp-up from the start of the run (0: none). */
  up_ms: number;
  /** Length of the ramp-down before end_ms (0: none). */
  down_ms: number;
  /** When the run stops sending (--duration); required by a ramp-down, else null. */
  end_ms: number | null;
}

export function hasRamp(r: Ramp | undefined): r is Ramp {
  return r !== undefined && (r.up_ms > 0 || r.down_ms > 0);
}

/** Start of the ramp-down (Infinity without one). */
export function rampDownStart(r: Ramp): number {
  return r.down_ms > 0 && r.end_ms !== null ? r.end_ms - r.down_ms : Infinity;
}

/** W(t): the constant-rate time with as many expected arrivals as the ramped schedule by t. */
export function rampedWork(r: Ramp, t: number): number {
  const U = r.up_ms;
  const downAt = rampDownStart(r);
  if (t < U) return (t * t) / (2 * U);
  if (t < downAt) return t - U / 2;
  const D = r.down_ms;
  const x = Math.min(t, r.end_ms!) - downAt;
  return downAt - U / 2 + x - (x * x) / (2 * D);
}

/** W⁻¹(s): when the ramped schedule reaches constant-rate time s; Infinity past the end. */
export function rampedTime(r: Ramp, s: number): number {
  const U = r.up_ms;
  if (s < U / 2) return Math.sqrt(2 * U * s);
  const downAt = rampDownStart(r);
  const steady = s + U / 2;
  if (steady < downAt) return steady;
  const D = r.down_ms;
  const rest = s - (downAt - U / 2); // 0 ≤ rest, arrivals exist while rest < D/2
  if (rest >= D / 2) return Infinity;
  // x − x²/(2D) = rest  →  x = D·(1 − √(1 − 2·rest/D)), written without the cancellation.
  const x = (2 * rest) / (1 + Math.sqrt(1 - (2 * rest) / D));
  return downAt + x;
}

/** The unramped schedule's times seen through the ramp; ends at the end of the ramp-down. */
export function rampedTimes(inner: Iterator<number>, r: Ramp): Iterator<number> {
  if (!hasRamp(r)) return inner;
  return {
    next(): IteratorResult<number> {
      const n = inner.next();
      if (n.done) return n;
      const t = rampedTime(r, n.value);
      return Number.isFinite(t) ? { done: false, value: t } : { done: true, value: undefined };
    },
  };
}

/** Closed loop: when user k of n starts and from when it sends no new request (Infinity: never stops). */
export function userWindow(r: Ramp, k: number, n: number): { start_ms: number; stop_ms: number } {
  const start = r.up_ms > 0 ? (r.up_ms * k) / n : 0;
  const stop = r.down_ms > 0 && r.end_ms !== null ? r.end_ms - (r.down_ms * k) / n : Infinity;
  return { start_ms: start, stop_ms: stop };
}

/** Why a ramp cannot be applied to this load, or null. */
export function rampProblem(r: Ramp, o: { rate: number; closed: boolean; trace: boolean }): string | null {
  if (!hasRamp(r)) return null;
  if (o.trace) return '--ramp-up/--ramp-down: a trace replay keeps its own timestamps; drop the ramp';
  if (!o.closed && o.rate === Infinity) return '--ramp-up/--ramp-down ramp a finite --request-rate or a --concurrency; the rate is inf (all at once)';
  if (r.down_ms > 0 && r.end_ms === null) return '--ramp-down needs --duration (it is the last part of the duration)';
  if (r.end_ms !== null && r.up_ms + r.down_ms >= r.end_ms) return '--ramp-up + --ramp-down leave nothing of --duration at the full load';
  return null;
}
