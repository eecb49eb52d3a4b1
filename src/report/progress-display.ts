/**
 * Progress during a run, on stderr (stdout stays clean for --json):
 * - `bar` (a terminal): a live panel redrawn a few times a second by log-update, which rewrites
 *   only the lines that changed inside one synchronized-output frame, so it does not flicker;
 * - `lines` (a log, a pipe, CI): one plain line every few seconds, no escape codes;
 * - `none` (--quiet).
 * Fed by the runner's snapshots (`update`) and the finished records (`record`), both on the
 * coordinating thread; the senders only count.
 */
import type { RequestRecord } from '../record/record.js';
import type { ProgressSnapshot } from '../runner/progress.js';
import { renderLine, renderPanel } from './live-panel.js';
import { LiveStats, type LiveFrame } from './live-stats.js';

export type ProgressMode = 'bar' | 'lines' | 'none';

export function resolveProgressMode(mode: 'auto' | ProgressMode, stream: NodeJS.WriteStream | { isTTY?: boolean }): ProgressMode {
  if (mode !== 'auto') return mode;
  return stream.isTTY ? 'bar' : 'lines';
}

export interface DisplayOptions {
  /** The panel's first line (what runs against what). */
  title?: string;
  /** Plain lines: at most one per this many ms of the run's clock. */
  everyMsForLines?: number;
  /** Panel redraws per second on a terminal. */
  refreshHz?: number;
  /** The schedule sends everything at once: lateness is inherent, not a client fault. */
  burst?: boolean;
  /** Called with a frame once per snapshot (about once a second), e.g. to append progress.jsonl. */
  onFrame?: (frame: LiveFrame) => void;
}

export interface ProgressDisplay {
  update(p: ProgressSnapshot): void;
  record(r: RequestRecord): void;
  /** A record whose answer check is judged (record.quality set): the live accuracy. */
  judged(r: RequestRecord): void;
  /** Redraws the panel now: for a driver that runs synchronously (sim run), whose timers never fire meanwhile. */
  flush(): void;
  finish(): void;
}

/**
 * Returns the listener for runner snapshots and records, and `finish()`, which ends the display.
 * Async because log-update is imported only for a terminal panel: a run without one (a pipe,
 * `--progress none`) does not load it.
 */
export async function createProgressDisplay(
  mode: ProgressMode,
  stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number },
  optsOrEveryMs: DisplayOptions | number = {},
): Promise<ProgressDisplay> {
  const createLogUpdate = mode === 'bar' ? (await import('log-update')).createLogUpdate : null;
  const opts: DisplayOptions = typeof optsOrEveryMs === 'number' ? { everyMsForLines: optsOrEveryMs } : optsOrEveryMs;
  const stats = new LiveStats({ burst: opts.burst ?? false });
  const everyMs = opts.everyMsForLines ?? 5000;
  const title = opts.title ?? 'infermeter';
  let lastLineAt = -Infinity;
  let started = false;
  let dirty = false;
  let finished = false;

  // A terminal that reports no size (0 rows, as some ptys do) would make log-update clip the panel to nothing.
  const size = stream as { columns?: number; rows?: number };
  const terminal = { isTTY: true, write: (s: string) => stream.write(s), get columns() { return size.columns || 80; }, get rows() { return size.rows || 24; } };
  const log = createLogUpdate ? createLogUpdate(terminal as unknown as NodeJS.WriteStream) : null;
  const draw = () => {
    if (!log || !started || !dirty) return;
    dirty = false;
    log(renderPanel(stats.frame(), title, terminal.columns));
  };
  const timer = log ? setInterval(draw, 1000 / (opts.refreshHz ?? 4)) : null;
  timer?.unref();

  return {
    update(p: ProgressSnapshot): void {
      stats.update(p);
      started = true;
      dirty = true;
      if (!opts.onFrame && mode !== 'lines') return;
      const frame = stats.frame();
      opts.onFrame?.(frame);
      if (mode === 'lines' && p.elapsed_ms - lastLineAt >= everyMs) {
        stream.write(`${renderLine(frame)}\n`);
        lastLineAt = p.elapsed_ms;
      }
    },
    record(r: RequestRecord): void {
      stats.record(r);
      dirty = true;
    },
    judged(r: RequestRecord): void {
      stats.judged(r);
      dirty = true;
    },
    flush(): void {
      draw();
    },
    finish(): void {
      if (finished) return;
      finished = true;
      if (timer) clearInterval(timer);
      if (log && started) {
        dirty = true;
        draw();
        log.done();
      }
    },
  };
}
