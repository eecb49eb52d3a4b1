/**
 * When each worker was last heard from (its heartbeat), for declaring it lost after a silence —
 * not counting the time this process itself was stalled. A coordinator starved of CPU reads no
 * message while it is stalled; when it runs again, a timer can fire before the heartbeats queued
 * meanwhile are read, and every worker would look silent for the length of the stall.
 */
export class Liveness {
  private readonly seen = new Map<number, number>();
  private lastTick = Date.now();

  constructor(
    nodes: Iterable<number> = [],
    /** A check that runs this much later than its interval counts the lateness as a stall. */
    private readonly slackMs = 250,
  ) {
    for (const n of nodes) this.seen.set(n, Date.now());
  }

  heard(node: number): void {
    this.seen.set(node, Date.now());
  }

  /** Call at each periodic check (every `intervalMs`): lateness beyond the slack is forgiven. */
  tick(intervalMs: number): void {
    const now = Date.now();
    const stall = now - this.lastTick - intervalMs;
    if (stall > this.slackMs) for (const [n, t] of this.seen) this.seen.set(n, Math.min(now, t + stall));
    this.lastTick = now;
  }

  /** Periodic checks (re)start now: the time since the last one is not a stall. */
  restart(): void {
    this.lastTick = Date.now();
  }

  /** Milliseconds since `node` was last heard from (0 when it never was: it is not tracked). */
  silentMs(node: number): number {
    const t = this.seen.get(node);
    return t === undefined ? 0 : Date.now() - t;
  }
}
