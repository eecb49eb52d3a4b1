/**
 * Progress during a run: one self-rewriting line on a TTY, plain periodic lines otherwise
 * (CI logs, pipes). Writes to stderr so stdout stays clean for --json.
 */
import type { ProgressSnapshot } from '../runner/progress.js';
import { formatDuration } from '../config/units.js';

export type ProgressMode = 'bar' | 'lines' | 'none';

export function resolveProgressMode(mode: 'auto' | ProgressMode, stream: NodeJS.WriteStream): ProgressMode {
  if (mode !== 'auto') return mode;
  return stream.isTTY ? 'bar' : 'lines';
}

export function progressLine(p: ProgressSnapshot, prevTokens: number, intervalS: number): string {
  let fraction: number | null = p.total !== null ? p.done / p.total : null;
  const done = p.total !== null ? `${p.done}/${p.total}` : `${p.done} done`;
  if (p.duration_ms !== null) {
    const f = Math.min(1, p.elapsed_ms / p.duration_ms);
    fraction = fraction === null ? f : Math.max(fraction, f);
  }
  const width = 20;
  const bar = fraction === null ? '' : `[${'#'.repeat(Math.round(fraction * width)).padEnd(width, '.')}] `;
  const tokRate = intervalS > 0 ? (p.output_tokens - prevTokens) / intervalS : 0;
  return (
    `${bar}${done}  ${formatDuration(p.elapsed_ms)}  in flight ${p.inflight}` +
    (p.queued > 0 ? ` (+${p.queued} queued)` : '') +
    `  ok ${p.ok}  failed ${p.failed}  ${tokRate.toFixed(0)} tok/s`
  );
}

/** Returns a listener for runner snapshots and a `finish()` that ends the display. */
export function createProgressDisplay(mode: ProgressMode, stream: NodeJS.WriteStream, everyMsForLines = 5000) {
  let prevTokens = 0;
  let prevElapsed = 0;
  let lastLineAt = -Infinity;
  let drewBar = false;
  return {
    update(p: ProgressSnapshot): void {
      if (mode === 'none') return;
      const intervalS = (p.elapsed_ms - prevElapsed) / 1000;
      if (mode === 'bar') {
        stream.write(`\r\x1b[2K${progressLine(p, prevTokens, intervalS)}`);
        drewBar = true;
      } else if (p.elapsed_ms - lastLineAt >= everyMsForLines) {
        stream.write(`${progressLine(p, prevTokens, intervalS)}\n`);
        lastLineAt = p.elapsed_ms;
      } else return;
      prevTokens = p.output_tokens;
      prevElapsed = p.elapsed_ms;
    },
    finish(): void {
      if (drewBar) stream.write('\n');
    },
  };
}
