/**
 * compare's confidence interval of B − A, recomputed here from its parts: the same seeded
 * block-bootstrap draws (the forks of createRng(seed), A first), B/A − 1 per draw, and the
 * two-sided percentile interval at the per-figure level 1 − α/k, each end by numpy's linear
 * interpolation written out below — so a wrong level, a one-sided quantile or a swapped end fails.
 */
import { describe, expect, it } from 'vitest';
import { buildSample, resampleFigures, scratchFor } from '../../src/analysis/compare/bootstrap.js';
import { comparePair, type CompareOptions, type CompareSide } from '../../src/analysis/compare/compare.js';
import type { ShapeSource } from '../../src/analysis/compare/load-shape.js';
import { createRng } from '../../src/util/rng.js';
import { rec } from '../metrics/make-record.js';

const SHAPE: ShapeSource = { target: { model: 'm', endpoint: '/v1/completions' }, load: { request_rate: 2 }, workload: { dataset: 'eval' }, input_lengths: null, output_lengths: null };

/** 60 requests, one every 500 ms, TTFT base + (i·37 mod 50) ms, 3 tokens 10 ms apart. */
function side(label: string, base: number): CompareSide {
  const records = Array.from({ length: 60 }, (_, i) => {
    const t = i * 500 + base + ((i * 37) % 50);
    return rec({ sent_ms: i * 500, chunks: [t, t + 10, t + 20] });
  });
  const ttft = records.map((r) => r.first_token_ms! - r.sent_ms).sort((a, b) => a - b);
  return { label, kind: 'run', shape: SHAPE, figures: { ttft_p50: numpyPercentile(ttft, 50) }, sample: buildSample(records, { start_ms: 0, end_ms: 30_000 }, null, null), prompts: 'p' };
}

/** numpy.percentile(xs, p) (linear), xs sorted ascending. */
function numpyPercentile(xs: readonly number[], p: number): number {
  const h = ((xs.length - 1) * p) / 100;
  const lo = Math.floor(h);
  const hi = Math.min(xs.length - 1, lo + 1);
  return xs[lo]! + (h - lo) * (xs[hi]! - xs[lo]!);
}

const OPTS: CompareOptions = { resamples: 300, seed: 7, confidence: 0.9, minEffect: 0.02, force: false, failOnRegression: null, failOnQualityDrop: null };

describe('comparePair: the interval of B − A', () => {
  it('is the two-sided percentile interval of the bootstrap draws at the per-figure level', () => {
    const A = side('a', 100);
    const B = side('b', 112);
    const row = comparePair(A, B, OPTS).figures.find((f) => f.figure.id === 'ttft_p50')!;
    expect(row.ci).not.toBeNull();

    const base = createRng(OPTS.seed);
    const rngA = base.fork();
    const rngB = base.fork();
    const sa = scratchFor(A.sample!);
    const sb = scratchFor(B.sample!);
    const draws: number[] = [];
    for (let r = 0; r < OPTS.resamples; r++) {
      const a = resampleFigures(A.sample!, rngA, sa, false).ttft_p50!;
      const b = resampleFigures(B.sample!, rngB, sb, false).ttft_p50!;
      draws.push(b / a - 1);
    }
    draws.sort((x, y) => x - y);
    // one figure compared: the per-figure level is the confidence itself, 90% → the 5th and 95th percentiles
    expect(row.ci![0]).toBeCloseTo(numpyPercentile(draws, 5), 12);
    expect(row.ci![1]).toBeCloseTo(numpyPercentile(draws, 95), 12);
    expect(row.ci![0]).toBeLessThan(row.ci![1]);
    // the point estimate lies inside, and 12 ms more TTFT on ~125 ms is a significant rise
    expect(row.delta!).toBeGreaterThan(row.ci![0]);
    expect(row.delta!).toBeLessThan(row.ci![1]);
    expect(row.verdict).toBe('worse');
  });
});

/** n requests one every 100 ms, TTFT 100 ms; every `everyNth` one (from the 25th) fails with a 500. */
function errorSide(label: string, model: string, n: number, everyNth: number | null): CompareSide {
  const records = Array.from({ length: n }, (_, i) =>
    everyNth !== null && i % everyNth === 25 ? rec({ sent_ms: i * 100, end_ms: i * 100 + 5, status: 'error', error_class: 'http_5xx' }) : rec({ sent_ms: i * 100, chunks: [i * 100 + 100, i * 100 + 110] }),
  );
  const failed = records.filter((r) => r.status !== 'ok').length;
  return {
    label,
    kind: 'run',
    shape: { ...SHAPE, target: { model, endpoint: '/v1/completions' } },
    figures: { ttft_p50: 100, error_rate: failed / n },
    sample: buildSample(records, { start_ms: 0, end_ms: n * 100 + 110 }, null, null),
    prompts: 'p',
  };
}

describe('comparePair: error rate from zero, and runs of two models', () => {
  it('an error rate rising from 0 to 2% is a regression under --fail-on-regression', () => {
    const A = errorSide('a', 'm', 300, null);
    const B = errorSide('b', 'm', 300, 50);
    expect(B.figures.error_rate).toBe(0.02);
    const c = comparePair(A, B, { ...OPTS, failOnRegression: 0.1 });
    const row = c.figures.find((f) => f.figure.id === 'error_rate')!;
    expect(row.delta).toBeCloseTo(0.02, 12);
    expect(row.ci![0]).toBeGreaterThan(0);
    expect(row.verdict).toBe('worse');
    expect(row.regression).toBe(true);
    // without the flag it is worse, not a regression
    expect(comparePair(A, B, OPTS).figures.find((f) => f.figure.id === 'error_rate')!.regression).toBe(false);
  });

  it('two runs that differ only in the model are judged (that is what a model comparison is)', () => {
    const c = comparePair(errorSide('a', 'llama-8b', 300, null), errorSide('b', 'qwen-7b', 300, 50), OPTS);
    expect(c.judged).toBe(true);
    expect(c.figures.find((f) => f.figure.id === 'error_rate')!.verdict).toBe('worse');
  });
});

/**
 * n requests one every 100 ms whose TTFT shares a component within runs of 20 consecutive
 * requests (a batch's queueing): 100 + 30·z_batch + 10·e_i ms (z, e standard normal), + shift.
 */
function correlatedSide(label: string, seed: number, shift: number, n = 400): CompareSide {
  const rng = createRng(seed);
  let z = 0;
  const records = Array.from({ length: n }, (_, i) => {
    if (i % 20 === 0) z = rng.normal();
    const t = i * 100 + Math.max(1, 100 + shift + 30 * z + 10 * rng.normal());
    return rec({ sent_ms: i * 100, chunks: [t, t + 10, t + 20] });
  });
  const ttft = records.map((r) => r.first_token_ms! - r.sent_ms).sort((a, b) => a - b);
  return { label, kind: 'run', shape: SHAPE, figures: { ttft_p50: numpyPercentile(ttft, 50) }, sample: buildSample(records, { start_ms: 0, end_ms: n * 100 + 400 }, null, null), prompts: 'p' };
}

describe('comparePair: the block intervals on correlated latencies', () => {
  it('two runs of one process: the 90% interval of the TTFT p50 change holds 0 for most of 20 seed pairs; 60% slower (about five standard errors): excluded every time', () => {
    const opts = { ...OPTS, resamples: 200 };
    let covered = 0;
    let caught = 0;
    for (let k = 0; k < 20; k++) {
      const A = correlatedSide('a', 1000 + k, 0);
      const same = comparePair(A, correlatedSide('b', 2000 + k, 0), opts).figures.find((f) => f.figure.id === 'ttft_p50')!;
      if (same.ci![0] <= 0 && same.ci![1] >= 0) covered++;
      const slower = comparePair(A, correlatedSide('b', 2000 + k, 60), opts).figures.find((f) => f.figure.id === 'ttft_p50')!;
      if (slower.ci![0] > 0) caught++;
    }
    // nominal 90%: 20 pairs cover 0 at least 15 times but with a chance of about 1%
    expect(covered).toBeGreaterThanOrEqual(15);
    expect(caught).toBe(20);
  });
});
