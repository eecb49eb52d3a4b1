import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runDistributions } from '../../src/report/data/distributions.js';
import { runSeries, seriesTokens } from '../../src/report/data/time-series.js';
import { RecordColumns } from '../../src/record/record-columns.js';
import { chooseWindowS, makeWindows } from '../../src/report/data/windows.js';
import { percentile } from '../../src/metrics/stats.js';
import { tpot as tpotDef } from '../../src/metrics/defs/tpot.js';
import { rec } from '../metrics/make-record.js';

describe('report windows', () => {
  it('picks at most ~200 windows, 1 s ones when the run is long enough', () => {
    expect(chooseWindowS(0.4)).toBe(0.1);
    expect(chooseWindowS(12)).toBe(1);
    expect(chooseWindowS(200)).toBe(1);
    expect(chooseWindowS(3600)).toBe(30);
    expect(3600 / chooseWindowS(3600)).toBeLessThanOrEqual(200);
  });
});

describe('runSeries', () => {
  // End 400 ms → 0.1 s windows [0,100) [100,200) [200,300) [300,400] (400 falls in the last).
  const records = [
    rec({ sent_ms: 0, chunks: [50, 100, 150] }), // A: TTFT 50, TPOT (150 − 50)/(3 − 1) = 50
    rec({ scheduled_ms: 100, sent_ms: 120, chunks: [220], end_ms: 230 }), // B: TTFT 100, sent 20 ms late
    rec({ sent_ms: 300, end_ms: 400, status: 'error', error_class: 'http_5xx' }), // C
  ];
  const s = runSeries(records, [{ metric: 'ttft_ms', threshold_ms: 60 }]);

  it('counts completions, tokens, in-flight time and latency per window, by hand', () => {
    expect(s.window_s).toBe(0.1);
    expect(s.points.map((p) => p.t)).toEqual([0, 0.1, 0.2, 0.3]);
    expect(s.points.map((p) => p.completed_per_s)).toEqual([0, 10, 10, 0]);
    expect(s.points.map((p) => p.failed_per_s)).toEqual([0, 0, 0, 10]);
    // One token per chunk: A's at 50 | 100, 150; B's at 220.
    expect(s.points.map((p) => p.output_tokens_per_s)).toEqual([10, 20, 10, 0]);
    // Busy ms / 100: A 0–100 | A 100–150 + B 120–200 = 130 | B 200–230 | C 300–400.
    expect(s.points.map((p) => p.in_flight)).toEqual([1, 1.3, 0.3, 1]);
    expect(s.points.map((p) => p.ttft_p50)).toEqual([50, null, 100, null]);
    expect(s.points.map((p) => p.tpot_p99)).toEqual([null, 50, null, null]);
    expect(s.points.map((p) => [p.scheduled, p.sent])).toEqual([[1, 1], [2, 2], [2, 2], [3, 3]]);
    expect(s.points.map((p) => p.lag_max)).toEqual([0, 20, null, 0]);
    expect(s.errors).toEqual([{ t: 0.3, error_class: 'http_5xx', count: 1 }]);
  });

  it('gives SLO attainment per window of the requests ending in it', () => {
    expect(s.slo).toEqual([
      { t: 0.1, objective: 'TTFT ≤ 60 ms', attained: 1, requests: 1 },
      { t: 0.1, objective: 'all SLOs (goodput)', attained: 1, requests: 1 },
      { t: 0.2, objective: 'TTFT ≤ 60 ms', attained: 0, requests: 1 },
      { t: 0.2, objective: 'all SLOs (goodput)', attained: 0, requests: 1 },
      { t: 0.3, objective: 'TTFT ≤ 60 ms', attained: 0, requests: 1 },
      { t: 0.3, objective: 'all SLOs (goodput)', attained: 0, requests: 1 },
    ]);
    expect(runSeries(records, []).slo).toBeNull();
  });
});

describe('runSeries with its tokens spread by runDistributions', () => {
  it('gives the same series, and the distributions are the same, bit for bit (property)', () => {
    const spec = fc.array(
      fc.record({
        sent: fc.integer({ min: 0, max: 30_000 }),
        steps: fc.array(fc.integer({ min: 0, max: 2000 }), { maxLength: 25 }),
        tokens: fc.integer({ min: 0, max: 70 }),
        status: fc.constantFrom('ok' as const, 'ok' as const, 'error' as const),
        phase: fc.constantFrom('measure' as const, 'measure' as const, 'warmup' as const),
        columns: fc.boolean(),
      }),
      { minLength: 1, maxLength: 40 },
    );
    fc.assert(
      fc.property(spec, (specs) => {
        const cols = new RecordColumns();
        const records = specs.map((x) => {
          let t = x.sent * 1000;
          const chunks = x.steps.map((d) => (t += d * 1000 + 7) / 1000);
          const r = rec({ sent_ms: x.sent, chunks, status: x.status, phase: x.phase, output_tokens: x.tokens, end_ms: t / 1000 + 3, ...(x.status === 'error' ? { error_class: 'http_5xx' as const } : {}) });
          if (!x.columns) return r;
          cols.add(r);
          return cols.view(cols.length - 1);
        });
        const tokens = seriesTokens(records);
        expect(runDistributions(records, tokens)).toEqual(runDistributions(records));
        expect(runSeries(records, [], tokens)).toEqual(runSeries(records, []));
      }),
      { numRuns: 100 },
    );
  });
});


describe('runSeries per-window percentiles', () => {
  // Oracle: each window's values in a plain array, sorted with a comparator, read by percentile().
  const r3 = (v: number): number => Math.round(v * 1000) / 1000;
  const pctOf = (vs: number[] | undefined, p: number): number | null => (vs && vs.length ? r3(percentile([...vs].sort((a, b) => a - b), p)) : null);

  it('are those of each window\'s values sorted alone (property)', () => {
    const spec = fc.array(
      fc.record({
        scheduled: fc.integer({ min: 0, max: 20_000 }),
        late: fc.integer({ min: 0, max: 900 }),
        ttft: fc.integer({ min: 1, max: 3000 }),
        steps: fc.array(fc.integer({ min: 1, max: 400 }), { maxLength: 6 }),
        status: fc.constantFrom('ok' as const, 'ok' as const, 'error' as const),
      }),
      { minLength: 1, maxLength: 60 },
    );
    fc.assert(
      fc.property(spec, (specs) => {
        const records = specs.map((x) => {
          const sent = x.scheduled + x.late;
          let t = sent + x.ttft;
          const chunks = [t, ...x.steps.map((d) => (t += d))];
          return rec({ scheduled_ms: x.scheduled, sent_ms: sent, chunks, status: x.status, ...(x.status === 'error' ? { error_class: 'http_5xx' as const } : {}) });
        });
        const s = runSeries(records, []);
        const w = makeWindows(Math.max(...records.map((r) => Math.max(r.end_ms, r.sent_ms, r.scheduled_ms))));
        const ttft: number[][] = [];
        const tpot: number[][] = [];
        const lag: number[][] = [];
        for (const r of records) {
          (lag[w.of(r.sent_ms)] ??= []).push(r.sent_ms - r.scheduled_ms);
          if (r.status !== 'ok') continue;
          (ttft[w.of(r.first_token_ms!)] ??= []).push(r.first_token_ms! - r.sent_ms);
          const tp = tpotDef.value(r);
          if (tp !== null) (tpot[w.of(r.end_ms)] ??= []).push(tp);
        }
        s.points.forEach((p, i) => {
          expect([p.ttft_p50, p.ttft_p90, p.ttft_p99]).toEqual([pctOf(ttft[i], 50), pctOf(ttft[i], 90), pctOf(ttft[i], 99)]);
          expect([p.tpot_p50, p.tpot_p90, p.tpot_p99]).toEqual([pctOf(tpot[i], 50), pctOf(tpot[i], 90), pctOf(tpot[i], 99)]);
          expect([p.lag_p50, p.lag_p99, p.lag_max]).toEqual([pctOf(lag[i], 50), pctOf(lag[i], 99), pctOf(lag[i], 100)]);
        });
      }),
      { numRuns: 100 },
    );
  });
});
