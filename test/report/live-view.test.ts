import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { renderLine, renderPanel } from '../../src/report/live-panel.js';
import { LiveStats } from '../../src/report/live-stats.js';
import { createProgressDisplay, resolveProgressMode } from '../../src/report/progress-display.js';
import type { ProgressSnapshot } from '../../src/runner/progress.js';
import { runCli } from '../helpers/cli.js';
import { rec } from '../metrics/make-record.js';

const snap = (over: Partial<ProgressSnapshot>): ProgressSnapshot => ({
  elapsed_ms: 0, total: null, duration_ms: null, sent: 0, done: 0, ok: 0, failed: 0, inflight: 0, queued: 0, output_tokens: 0, ...over,
});

/** A stream that collects what is written and says whether it is a terminal. */
function stream(isTTY: boolean) {
  const w = new Writable({
    write(chunk: Buffer, _e, cb) {
      w.text += chunk.toString();
      cb();
    },
  }) as Writable & { text: string; isTTY: boolean; columns: number; rows: number };
  w.text = '';
  w.isTTY = isTTY;
  w.columns = 120;
  w.rows = 40;
  return w;
}

// ESC, as every ANSI control sequence starts
const ESC = '\u001b';

describe('live stats (hand-computed)', () => {
  it('percentiles, rates and failures over the trailing window', () => {
    const s = new LiveStats({ windowMs: 10_000 });
    // Old completion at 1 s, outside a window ending at 20 s.
    s.record(rec({ sent_ms: 0, chunks: [900, 1000], status: 'ok' }));
    // In the window: TTFTs 10, 20, 30, 40 ms; 3 tokens each, last chunk 20 ms after the first → TPOT 10 ms.
    for (const [i, ttft] of [10, 20, 30, 40].entries()) {
      const sent = 15_000 + i * 1000;
      s.record(rec({ sent_ms: sent, chunks: [sent + ttft, sent + ttft + 10, sent + ttft + 20] }));
    }
    s.record(rec({ sent_ms: 19_000, end_ms: 19_500, status: 'error', error_class: 'http_5xx' }));
    s.record(rec({ sent_ms: 19_000, end_ms: 19_600, status: 'timeout', error_class: 'timeout' }));
    s.update(snap({ elapsed_ms: 20_000, total: 100, sent: 12 }));
    const f = s.frame();
    expect(f.done).toBe(7);
    expect(f.ok).toBe(5);
    expect(f.failed_by_class).toEqual({ http_5xx: 1, timeout: 1 });
    expect(f.inflight).toBe(12 - 7);
    // numpy linear percentiles of [10, 20, 30, 40]: p50 = 25, p99 = 30 + 0.97·10 = 39.7
    expect(f.ttft_p50_ms).toBeCloseTo(25, 9);
    expect(f.ttft_p99_ms).toBeCloseTo(39.7, 9);
    expect(f.tpot_p50_ms).toBeCloseTo(10, 9);
    // 6 completions in the last 10 s → 0.6 req/s; 4 ok × 3 tokens / 10 s = 1.2 tok/s
    expect(f.request_rate).toBeCloseTo(0.6, 9);
    expect(f.output_tokens_per_s).toBeCloseTo(1.2, 9);
    // 93 requests left at 0.6 req/s = 155 s
    expect(f.fraction).toBeCloseTo(0.07, 9);
    expect(f.remaining_ms).toBeCloseTo(155_000, 6);
    expect(f.client.state).toBe('unknown');
  });

  it('a duration run: fraction and remaining from the clock; the client state follows the validity thresholds', () => {
    const s = new LiveStats();
    s.update(snap({ elapsed_ms: 15_000, duration_ms: 60_000, lag_max_ms: 0.4, busy: 0.2 }));
    let f = s.frame();
    expect(f.fraction).toBe(0.25);
    expect(f.remaining_ms).toBe(45_000);
    expect(f.client).toMatchObject({ state: 'ok', reason: null });
    s.update(snap({ elapsed_ms: 16_000, duration_ms: 60_000, lag_max_ms: 25, busy: 0.2 }));
    f = s.frame();
    expect(f.client.state).toBe('at risk');
    expect(f.client.reason).toMatch(/behind schedule.*25\.0 ms/);
    // All-at-once loads are late by design: lateness alone is no risk there.
    const burst = new LiveStats({ burst: true });
    burst.update(snap({ elapsed_ms: 1000, lag_max_ms: 300, busy: 0.5 }));
    expect(burst.frame().client.state).toBe('ok');
  });

  it('answer checks: accuracy so far over the answered ones; warm-up and retried attempts left out', () => {
    const s = new LiveStats();
    expect(s.frame().quality).toBeNull();
    const judged = (over: Partial<ReturnType<typeof rec>>, pass: boolean) =>
      s.judged(rec({ sent_ms: 0, chunks: [5], status: 'ok', ...over, quality: { kind: 'numeric', pass, outcome: pass ? 'correct' : 'wrong', reason: '' } }));
    judged({}, true);
    judged({}, true);
    judged({}, false);
    judged({ status: 'error' }, false); // no answer: judged, not answered
    judged({ phase: 'warmup' }, true);
    judged({ retried: true }, false);
    s.judged(rec({ sent_ms: 0, chunks: [5] })); // no check
    const f = s.frame();
    expect(f.quality).toEqual({ judged: 4, answered: 3, passed: 2 });
    expect(renderLine(f)).toContain('accuracy 66.7% (2/3 answered so far)');
    expect(renderPanel(f, 't')).toMatch(/^quality {3}accuracy 66\.7% \(2\/3 answered so far\)$/m);
    // A run without checks: no quality line at all.
    expect(renderPanel(new LiveStats().frame(), 't')).not.toContain('quality');
  });
});

describe('progress display', () => {
  it('auto: a panel on a terminal, plain lines elsewhere', () => {
    expect(resolveProgressMode('auto', { isTTY: true })).toBe('bar');
    expect(resolveProgressMode('auto', { isTTY: false })).toBe('lines');
    expect(resolveProgressMode('auto', {})).toBe('lines');
  });

  it('plain lines carry the figures and no escape codes', async () => {
    const out = stream(false);
    const d = await createProgressDisplay('lines', out, { everyMsForLines: 5000 });
    d.record(rec({ sent_ms: 0, chunks: [50, 60, 70] }));
    d.record(rec({ sent_ms: 0, end_ms: 80, status: 'error', error_class: 'http_429' }));
    d.update(snap({ elapsed_ms: 1000, total: 10, sent: 4 }));
    d.update(snap({ elapsed_ms: 2000, total: 10, sent: 4 })); // within 5 s of the last line: not printed
    d.update(snap({ elapsed_ms: 6000, total: 10, sent: 6 }));
    d.finish();
    const lines = out.text.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[0:01\] 20% 2\/10 .*in flight 2 .*ok 1 .*failed 1 \(http_429 1\).*TTFT p50\/p99 50\.0\/50\.0 ms/);
    expect(out.text).not.toContain(ESC);
    expect(out.text).not.toContain('\r');
  });

  it('a terminal gets the live panel, redrawn in place; finish leaves the last frame', async () => {
    const out = stream(true);
    const frames: unknown[] = [];
    const d = await createProgressDisplay('bar', out, { title: 'infermeter run: m @ sim', onFrame: (f) => frames.push(f) });
    d.record(rec({ sent_ms: 0, chunks: [40, 50, 60] }));
    d.update(snap({ elapsed_ms: 1000, total: 4, sent: 2 }));
    d.finish();
    expect(out.text).toContain(ESC); // drawn with cursor control, by log-update
    expect(out.text).toContain('infermeter run: m @ sim');
    expect(out.text).toMatch(/requests +1\/4 +in flight 1 +ok 1 +failed 0/);
    expect(out.text).toMatch(/TTFT ms +p50 40\.0/);
    expect(frames).toHaveLength(1);
  });

  it('none draws nothing', async () => {
    const out = stream(true);
    const d = await createProgressDisplay('none', out);
    d.update(snap({ elapsed_ms: 1000 }));
    d.finish();
    expect(out.text).toBe('');
  });
});

describe('run: progress on stderr', () => {
  const args = ['run', '--sim-prefill-ms', '5', '--sim-per-token-ms', '2', '--num-prompts', '20', '--request-rate', '40', '--random-input-len', '16', '--random-output-len', '8', '--workers', '0', '--no-save', '--allow-invalid'];

  it('not a terminal: plain progress lines, no escape codes anywhere', async () => {
    const out = await runCli(args);
    expect(out.code, out.stderr).toBe(0);
    // --workers 0: the runner's last snapshot reaches the display however short the run was
    expect(out.stderr).toMatch(/^\[\d+:\d\d\] \d+% \d+\/20 .*req\/s/m);
    expect(out.stderr).not.toContain(ESC);
    expect(out.stdout).not.toContain(ESC);
  });

  it('--quiet: no progress at all', async () => {
    const out = await runCli([...args, '--quiet']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).not.toMatch(/^\[\d+:\d\d\]/m);
  });
});

describe('sim run: progress on stderr', () => {
  const args = ['sim', 'run', '--request-rate', '20', '--num-prompts', '200', '--random-input-len', '128', '--random-output-len', '16', '--no-save'];

  it('not a terminal: plain lines on the virtual clock, the last one at 200/200, no escape codes', async () => {
    const out = await runCli(args);
    expect(out.code, out.stderr).toBe(0);
    const lines = out.stderr.split('\n').filter((l) => /^\[\d+:\d\d\]/.test(l));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.at(-1)).toMatch(/^\[0:1\d\] 100% 200\/200 .*ok 200 +failed 0/); // 200 requests at 20/s: ~10 s of virtual time
    expect(out.stderr).not.toContain(ESC);
  });

  it('--quiet: none', async () => {
    const out = await runCli([...args, '--quiet']);
    expect(out.code).toBe(0);
    expect(out.stderr).not.toMatch(/^\[\d+:\d\d\]/m);
  });
});
