import { describe, expect, it } from 'vitest';
import { parseObjective } from '../../src/config/slo.js';
import { evaluateObjectives, OBJECTIVE_METRICS } from '../../src/metrics/index.js';
import type { RequestRecord } from '../../src/record/record.js';
import { rec } from './make-record.js';

const slo = (text: string) => parseObjective(text, OBJECTIVE_METRICS);

/**
 * 30 requests, one per second: request i is sent at i·1000 ms, its first token comes after
 * 100 ms (800 ms for i = 10..19), a second chunk 10 ms later. Request 25 fails.
 * Measured phase: 0 → 29 110 ms, so 10-second windows are [0,10s) [10s,20s) [20s,29.11s].
 */
function thirtySeconds(): RequestRecord[] {
  const out: RequestRecord[] = [];
  for (let i = 0; i < 30; i++) {
    const sent = i * 1000;
    const ttft = i >= 10 && i < 20 ? 800 : 100;
    if (i === 25) out.push(rec({ sent_ms: sent, end_ms: sent + 5, status: 'error', error_class: 'http_5xx' }));
    else out.push(rec({ sent_ms: sent, chunks: [sent + ttft, sent + ttft + 10] }));
  }
  return out;
}

describe('evaluateObjectives: tumbling windows', () => {
  it('counts the windows that meet a latency objective', () => {
    const [r] = evaluateObjectives(thirtySeconds(), [slo('p99(ttft) <= 500ms over 10s >= 60%')]);
    // Whole run: 19 ok TTFTs of 100 and 10 of 800; h = 28·0.99 = 27.72 → x[27] = x[28] = 800.
    expect(r!.value).toBe(800);
    expect(r!.windows).toEqual({ total: 3, evaluated: 3, met: 2, whole_run: false });
    expect(r!.attainment).toBeCloseTo(2 / 3, 12);
    expect(r!.worst_window).toEqual({ index: 1, start_ms: 10_000, end_ms: 20_000, value: 800 });
    expect(r!.pass).toBe(true);
    expect(r!.reason).toMatch(/2 of 3 windows/);
  });

  it('fails when attainment is below the target', () => {
    const [r] = evaluateObjectives(thirtySeconds(), [slo('p99(ttft) <= 500ms over 10s >= 99.9%')]);
    expect(r!.pass).toBe(false);
    expect(r!.attainment_target).toBe(0.999);
  });

  it('evaluates run metrics per window: error rate and output throughput', () => {
    const [err, tput] = evaluateObjectives(thirtySeconds(), [slo('error_rate < 5% over 10s'), slo('output_throughput >= 2 over 10s')]);
    // Error rate: 0, 0, and 1/10 in the third window; whole run 1/30.
    expect(err!.value).toBeCloseTo(1 / 30, 12);
    expect(err!.windows.met).toBe(2);
    expect(err!.worst_window).toEqual({ index: 2, start_ms: 20_000, end_ms: 29_110, value: 0.1 });
    expect(err!.pass).toBe(false);
    // Output tokens/s: window 0 and 1 hold 10 ok requests × 2 tokens over 10 s = 2 tok/s;
    // window 2 holds 9 × 2 = 18 tokens over 9.11 s = 1.976 tok/s, below 2.
    expect(tput!.windows.met).toBe(2);
    expect(tput!.worst_window!.value).toBeCloseTo(18 / 9.11, 12);
    expect(tput!.worst_window!.index).toBe(2);
  });

  it('treats a run shorter than the window as one window and says so', () => {
    const [r] = evaluateObjectives(thirtySeconds(), [slo('p50(ttft) < 200ms over 5m >= 99%')]);
    expect(r!.windows).toEqual({ total: 1, evaluated: 1, met: 1, whole_run: true });
    expect(r!.reason).toMatch(/shorter than the 300 s window: one window/);
    expect(r!.pass).toBe(true);
  });

  it('without a window, judges the whole measured phase', () => {
    const [r] = evaluateObjectives(thirtySeconds(), [slo('mean(ttft) < 300ms')]);
    // (19·100 + 10·800) / 29 = 341.38 ms.
    expect(r!.value).toBeCloseTo(9900 / 29, 9);
    expect(r!.pass).toBe(false);
    expect(r!.window_ms).toBeNull();
  });

  it('leaves out windows where nothing completed, and fails without any data', () => {
    // Two bursts 40 s apart: the 10-second windows between them are empty.
    const recs = [rec({ sent_ms: 0, chunks: [100, 110] }), rec({ sent_ms: 40_000, chunks: [40_100, 40_110] })];
    const [r] = evaluateObjectives(recs, [slo('p95(ttft) < 1s over 10s')]);
    expect(r!.windows).toEqual({ total: 5, evaluated: 2, met: 2, whole_run: false });
    expect(r!.pass).toBe(true);
    const [none] = evaluateObjectives([rec({ sent_ms: 0, end_ms: 5, status: 'error' })], [slo('p95(ttft) < 1s')]);
    expect(none!.pass).toBe(false);
    expect(none!.reason).toMatch(/no value/);
  });

  it('ignores warm-up records', () => {
    const recs = [rec({ sent_ms: 0, chunks: [5000, 5010], phase: 'warmup' }), rec({ sent_ms: 1000, chunks: [1100, 1110] })];
    const [r] = evaluateObjectives(recs, [slo('max(ttft) < 200ms')]);
    expect(r!.value).toBe(100);
    expect(r!.pass).toBe(true);
  });

  it('counts goodput against the per-request SLOs', () => {
    const [r] = evaluateObjectives(thirtySeconds(), [slo('goodput_attained >= 60%')], { goodput: [{ metric: 'ttft_ms', threshold_ms: 500 }] });
    // 19 of 30 attempts were ok with TTFT ≤ 500 ms.
    expect(r!.value).toBeCloseTo(19 / 30, 12);
    expect(r!.pass).toBe(true);
  });
});

describe('evaluateObjectives: window boundaries', () => {
  it('a request counts in the window it completed in, not the one it was sent in', () => {
    // 10 s windows over 0 → 15 110 ms: [0, 10 s) and [10 s, 15.11 s]. B is sent at 9.5 s (window 0)
    // and completes at 11.51 s (window 1), with a 2 s TTFT: window 1 misses, window 0 meets.
    const records = [
      rec({ sent_ms: 0, chunks: [100, 200] }),
      rec({ sent_ms: 9_500, chunks: [11_500, 11_510] }),
      rec({ sent_ms: 15_000, chunks: [15_100, 15_110] }),
    ];
    const [r] = evaluateObjectives(records, [slo('p99(ttft) <= 500ms over 10s >= 50%')]);
    expect(r!.windows).toEqual({ total: 2, evaluated: 2, met: 1, whole_run: false });
    // window 1 holds TTFTs 2000 and 100: p99 = 100 + 0.99·1900 = 1981
    expect(r!.worst_window).toMatchObject({ index: 1, start_ms: 10_000, end_ms: 15_110 });
    expect(r!.worst_window!.value).toBeCloseTo(1981, 9);
  });

  it('a run exactly one window long is one whole-run window', () => {
    const records = [rec({ sent_ms: 0, chunks: [100, 200] }), rec({ sent_ms: 5_000, chunks: [9_900, 10_000] })];
    const [r] = evaluateObjectives(records, [slo('p99(ttft) <= 500ms over 10s >= 50%')]);
    expect(r!.windows).toEqual({ total: 1, evaluated: 1, met: 0, whole_run: true });
    expect(r!.reason).toContain('shorter than the 10 s window: one window');
  });
});
