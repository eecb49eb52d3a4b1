/**
 * The live view of `sim run`. The virtual-time run pauses only every ~50 ms of wall time (for
 * signals), so no timer is relied on: the engine's per-step callback feeds the display and, at most every 250 ms of
 * wall time (1 s for plain lines), hands it a snapshot on the virtual clock and draws.
 */
import type { ProgressSnapshot } from '../runner/progress.js';
import type { RequestRecord } from '../record/record.js';
import { openView, type SessionContext } from './context.js';

type Step = { clock_ms: number; total: number | null; sent: number; in_flight: number; finished: readonly RequestRecord[] };

export async function virtualProgress(ctx: SessionContext, title: string, durationMs: number | null) {
  const drawn = ctx.progress !== undefined;
  // Lines come once per wall second here, not per 5 s of the run's (virtual) clock.
  const display = await openView(ctx, { title, everyMsForLines: 0 });
  const everyMs = ctx.redrawEveryMs ?? 250;
  let last = performance.now();
  let done = 0;
  let latest: Step | null = null;
  const show = (p: Step) => {
    const snapshot: ProgressSnapshot = { elapsed_ms: p.clock_ms, total: p.total, duration_ms: durationMs, sent: p.sent, done, ok: 0, failed: 0, inflight: p.in_flight, queued: 0, output_tokens: 0 };
    display.update(snapshot);
    display.flush();
  };
  return {
    step(p: Step): void {
      if (!drawn) return;
      for (const r of p.finished) display.record(r);
      done += p.finished.length;
      latest = p;
      const now = performance.now();
      if (now - last < everyMs) return;
      last = now;
      show(p);
    },
    /** The final frame, however short the run was, then the end of the display. */
    finish(): void {
      if (latest) show(latest);
      latest = null;
      display.finish();
    },
  };
}
