/** The live view as text: a multi-line panel for a terminal, one plain line for logs. */
import type { LiveFrame } from './live-stats.js';

const ms = (v: number | null) => (v === null ? '—' : v >= 100 ? v.toFixed(0) : v.toFixed(1));

/** 0:07, 1:02:03 */
export function clock(msValue: number): string {
  const s = Math.max(0, Math.round(msValue / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

function failures(f: LiveFrame): string {
  const parts = Object.entries(f.failed_by_class)
    .sort((a, b) => b[1] - a[1])
    .map(([cls, n]) => `${cls} ${n}`);
  return `failed ${f.failed}${parts.length ? ` (${parts.join(', ')})` : ''}`;
}

function progressOf(f: LiveFrame): string {
  return f.total !== null ? `${f.done}/${f.total}` : `${f.done} done`;
}

function clientOf(f: LiveFrame): string {
  const c = f.client;
  if (c.state === 'unknown') return 'client: —';
  const figures = [c.lag_max_ms !== null ? `lag ≤ ${c.lag_max_ms.toFixed(1)} ms` : null, c.busy !== null ? `busy ${(c.busy * 100).toFixed(0)}%` : null].filter(Boolean).join(', ');
  return c.state === 'ok' ? `client: keeping up (${figures})` : `client: AT RISK — ${c.reason}`;
}

/** `accuracy 78.0% (64/82 answered so far)`, or '' before any check is judged. */
export function liveAccuracy(f: LiveFrame): string {
  const q = f.quality;
  if (!q) return '';
  const acc = q.answered > 0 ? `${((q.passed / q.answered) * 100).toFixed(1)}%` : '—';
  return `accuracy ${acc} (${q.passed}/${q.answered} answered so far)`;
}

/** The terminal panel: a title line, then a few aligned lines. */
export function renderPanel(f: LiveFrame, title: string, width = 80): string {
  const barWidth = Math.max(10, Math.min(40, width - 40));
  const bar = f.fraction === null ? '' : `[${'█'.repeat(Math.round(f.fraction * barWidth)).padEnd(barWidth, '·')}] ${(f.fraction * 100).toFixed(0).padStart(3)}%  `;
  const remaining = f.remaining_ms === null ? '' : `  remaining ~${clock(f.remaining_ms)}`;
  const w = `last ${f.window_s.toFixed(0)} s`;
  return [
    title,
    `${bar}elapsed ${clock(f.elapsed_ms)}${remaining}`,
    `requests  ${progressOf(f)}  in flight ${f.inflight}${f.queued > 0 ? ` (+${f.queued} queued)` : ''}  ok ${f.ok}  ${failures(f)}`,
    `rate      ${f.request_rate.toFixed(1)} req/s  ${f.output_tokens_per_s.toFixed(0)} output tok/s  (${w})`,
    `TTFT ms   p50 ${ms(f.ttft_p50_ms)}  p99 ${ms(f.ttft_p99_ms)}    TPOT ms  p50 ${ms(f.tpot_p50_ms)}  p99 ${ms(f.tpot_p99_ms)}  (${w})`,
    ...(f.quality ? [`quality   ${liveAccuracy(f)}`] : []),
    clientOf(f),
  ].join('\n');
}

/** One plain line (no escape codes) for a log or CI. */
export function renderLine(f: LiveFrame): string {
  const pct = f.fraction === null ? '' : `${(f.fraction * 100).toFixed(0)}% `;
  const remaining = f.remaining_ms === null ? '' : ` (~${clock(f.remaining_ms)} left)`;
  return (
    `[${clock(f.elapsed_ms)}] ${pct}${progressOf(f)}${remaining}  in flight ${f.inflight}${f.queued > 0 ? ` (+${f.queued} queued)` : ''}  ok ${f.ok}  ${failures(f)}` +
    `  ${f.request_rate.toFixed(1)} req/s  ${f.output_tokens_per_s.toFixed(0)} tok/s  TTFT p50/p99 ${ms(f.ttft_p50_ms)}/${ms(f.ttft_p99_ms)} ms  TPOT p50/p99 ${ms(f.tpot_p50_ms)}/${ms(f.tpot_p99_ms)} ms` +
    (f.quality ? `  ${liveAccuracy(f)}` : '') +
    (f.client.state === 'at risk' ? `  CLIENT AT RISK: ${f.client.reason}` : '')
  );
}
