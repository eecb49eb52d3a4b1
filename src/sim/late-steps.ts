/**
 * The real-time server's own overload signal. When a step ends later than its simulated time by
 * more than a threshold, every token of that step reaches the client late for a reason no real
 * engine has: the simulator process did not get the CPU. Such steps are counted (for /metrics,
 * infermeter_sim_late_steps_total) and announced with one warning line, repeated at most once a
 * minute with the count since, so a user never mistakes an overloaded simulator for a slow model.
 */

/** Lateness above which a step counts as late (ms): well above timer jitter, and already a
 * visible share of a decode step (single-digit to tens of ms). */
export const LATE_STEP_MS = 20;
/** At most one warning line per this long (ms of the backend's clock). */
const REPEAT_MS = 60_000;

export class LateSteps {
  /** Late steps since the backend started. */
  total = 0;
  private lastWarnMs = -Infinity;
  private sinceWarn = 0;

  constructor(
    private readonly warn: (line: string) => void,
    readonly thresholdMs: number = LATE_STEP_MS,
  ) {}

  /** One step ended `latenessMs` after its simulated end; `nowMs` on the backend's clock. */
  observe(latenessMs: number, nowMs: number): void {
    if (!(latenessMs > this.thresholdMs)) return;
    this.total++;
    this.sinceWarn++;
    if (nowMs - this.lastWarnMs < REPEAT_MS) return;
    const first = this.lastWarnMs === -Infinity;
    this.warn(
      `infermeter sim: warning: ${first ? 'a step' : `${this.sinceWarn} steps`} ended more than ${this.thresholdMs} ms late (${latenessMs.toFixed(1)} ms): ` +
        'the simulator is short of CPU, so its latencies are higher than the modelled engine; see infermeter_sim_late_steps_total in /metrics',
    );
    this.lastWarnMs = nowMs;
    this.sinceWarn = 0;
  }
}
