/**
 * compare's point figures read off the bootstrap sample (figuresOfSample) instead of the run's
 * full metrics: the oracle is what compare took before, figuresOfRun(computeMetrics(records)),
 * which must come out the same, number for number (toBe: the same doubles).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildSample, figuresOfSample } from '../../src/analysis/compare/bootstrap.js';
import { figuresOfRun } from '../../src/analysis/compare/key-figures.js';
import { computeMetrics, measureRecords, measuredWindow, runTotals, type Slo } from '../../src/metrics/index.js';
import { runSide } from '../../src/session/compare-sides.js';
import type { RequestRecord } from '../../src/record/record.js';
import type { RunResult } from '../../src/report/result-json.js';
import { rec } from '../metrics/make-record.js';

const SLOS: Slo[] = [
  { metric: 'ttft_ms', threshold_ms: 130 },
  { metric: 'itl_ms', threshold_ms: 4 },
];

/** Request i from (gaps in half-ms, kind): kind 0 fails, 1 is ok with no token, else ok with a first token after 100 + 5·kind ms. */
function recordsOf(reqs: ReadonlyArray<readonly [readonly number[], number]>, warmup: number): RequestRecord[] {
  return reqs.map(([gs, kind], i) => {
    const phase = i < warmup ? 'warmup' : 'measure';
    if (kind === 0) return rec({ id: i, phase, sent_ms: i * 7, end_ms: i * 7 + 3, status: 'error', error_class: 'http_5xx' });
    if (kind === 1) return rec({ id: i, phase, sent_ms: i * 7, end_ms: i * 7 + 40, prompt_tokens: 3 });
    const chunks = [i * 7 + 100 + kind * 5];
    for (const g of gs) chunks.push(chunks[chunks.length - 1]! + g / 2);
    return rec({ id: i, phase, sent_ms: i * 7, chunks, prompt_tokens: 10 + kind, client_prompt_tokens: 99 });
  });
}

function sampleFigures(records: readonly RequestRecord[], slos: readonly Slo[], costPer1m: number | null) {
  const measure = measureRecords(records);
  const window = measuredWindow(measure);
  const sample = buildSample(measure, window, slos.length > 0 ? slos : null, null);
  return figuresOfSample(sample, runTotals(measure, window, slos, undefined, undefined, false), costPer1m);
}

describe('figuresOfSample', () => {
  it('equals figuresOfRun of the run’s metrics: latency percentiles (ties, requests without a token, failures, warmup left out), throughputs, goodput, error rate (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 40 }), fc.integer({ min: 0, max: 9 })), { minLength: 1, maxLength: 120 }),
        fc.nat({ max: 5 }),
        fc.boolean(),
        (reqs, warmup, withSlos) => {
          const records = recordsOf(reqs, warmup);
          const slos = withSlos ? SLOS : [];
          expect(sampleFigures(records, slos, 1.25)).toStrictEqual(figuresOfRun(computeMetrics(records, { slos }), 1.25));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('nothing measured ok: every latency percentile null, as the metrics give them', () => {
    const records = [rec({ id: 0, sent_ms: 0, end_ms: 5, status: 'error', error_class: 'http_5xx' }), rec({ id: 1, sent_ms: 3, end_ms: 9, status: 'timeout' })];
    const got = sampleFigures(records, [], null);
    expect(got).toStrictEqual(figuresOfRun(computeMetrics(records), null));
    expect(got.ttft_p50).toBeNull();
    expect(got.itl_p99).toBeNull();
  });

  it('a run with a superseded attempt (--retries) keeps the metrics’ figures, which count only a request’s last attempt', () => {
    // request 0's first attempt answered (fast) yet was retried: the sample holds it, the metrics not
    const records = [
      rec({ id: 0, sent_ms: 0, chunks: [10, 11, 12], attempt: 0, retried: true }),
      rec({ id: 0, sent_ms: 20, chunks: [300, 305, 310], attempt: 1 }),
      ...Array.from({ length: 8 }, (_, i) => rec({ id: i + 1, sent_ms: 40 + i * 10, chunks: [200 + i * 25, 203 + i * 25, 204 + i * 25] })),
    ];
    const bundle = { dir: 'run-a', result: {} as Partial<RunResult>, spec: null, records };
    const side = runSide(bundle);
    const metrics = figuresOfRun(computeMetrics(records), null);
    expect(side.figures).toStrictEqual(metrics);
    // the sample's own figures differ here (the reason for the fallback)
    expect(sampleFigures(records, [], null).ttft_p50).not.toBe(metrics.ttft_p50);
  });
});
