/** The SLO section of the console summary: one line per SLO, pass or fail and why. */
import type { ObjectiveResult } from '../metrics/index.js';

/** A value in its SLO's unit: `812.3 ms`, `0.05%`, `1520.4 tok/s`. */
export function formatSloValue(v: number | null, unit: ObjectiveResult['unit']): string {
  if (v === null) return '—';
  switch (unit) {
    case 'ms':
      return `${v.toFixed(1)} ms`;
    case 'ratio':
      return `${Number((v * 100).toPrecision(4))}%`;
    case 'requests':
      return String(v);
    default:
      return `${v.toFixed(1)} ${unit}`;
  }
}

/** Offset into the measured phase: `+0s`, `+5m`, `+1h10m`. */
function formatOffset(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m${s % 60 ? `${s % 60}s` : ''}` : `${Math.floor(m / 60)}h${m % 60 ? `${m % 60}m` : ''}`;
}

/** `exitCode`: the command's real exit code (3 for a failed SLO, 5 when the run is also invalid, …); default 3. */
export function renderObjectives(results: readonly ObjectiveResult[], exitCode = 3): string {
  const failed = results.filter((r) => !r.pass).length;
  const why = exitCode === 3 ? '' : exitCode === 5 ? ': the run is also invalid' : ': stopped by a signal';
  const out = [`SLOs: ${failed === 0 ? `all ${results.length} met` : `${failed} of ${results.length} FAILED (exit code ${exitCode}${why})`}`];
  const width = Math.max(...results.map((r) => r.slo.length));
  for (const r of results) {
    const worst =
      r.worst_window && !r.windows.whole_run
        ? `; worst window ${formatSloValue(r.worst_window.value, r.unit)} in window ${r.worst_window.index + 1} (+${formatOffset(r.worst_window.index * (r.window_ms ?? 0))})`
        : '';
    out.push(`  ${r.pass ? 'PASS' : 'FAIL'}  ${r.slo.padEnd(width)}  whole run ${formatSloValue(r.value, r.unit)}; ${r.reason}${worst}`);
  }
  return out.join('\n');
}
