import { describe, expect, it } from 'vitest';
import { compareGroups, differenceOverRuns, groupSpread } from '../../src/analysis/compare/group-compare.js';
import type { CompareOptions, CompareSide } from '../../src/analysis/compare/compare.js';
import type { FigureValues } from '../../src/analysis/compare/key-figures.js';

const OPTS: CompareOptions = { resamples: 100, seed: 0, confidence: 0.95, minEffect: 0.02, force: false, failOnRegression: 0.05 };

/** A run known by its figures alone (no per-request data: no within-run term). */
function run(label: string, figures: FigureValues): CompareSide {
  return {
    label,
    kind: 'run',
    shape: { target: { model: 'm' }, load: { mode: 'open', request_rate: 8 }, workload: { dataset_name: 'random' }, outcome: { requests: 300, seed: label, prompt_salt: null }, input_lengths: null, output_lengths: null },
    figures,
    sample: null,
  };
}

describe('the variance of a group mean', () => {
  it('rests on the runs spread, or on their own noise when that is larger', () => {
    // y = [1, 2, 3]: s² = 1 > mean(v) = 0.1 → between: var 1/3, 2 degrees of freedom
    expect(groupSpread({ y: [1, 2, 3], v: [0.1, 0.1, 0.1] })).toMatchObject({ mean: 2, between: 1, basis: 'between', df: 2 });
    expect(groupSpread({ y: [1, 2, 3], v: [0.1, 0.1, 0.1] }).var_mean).toBeCloseTo(1 / 3, 12);
    // y = [1, 1.1, 1.2]: s² = 0.01 < mean(v) = 0.04 → within: var 0.04/3, ∞ degrees of freedom
    const w = groupSpread({ y: [1, 1.1, 1.2], v: [0.03, 0.04, 0.05] });
    expect(w).toMatchObject({ basis: 'within', df: Infinity });
    expect(w.var_mean).toBeCloseTo(0.04 / 3, 12);
  });

  it('Welch–Satterthwaite by hand: equal spreads of 3 runs give ν = 4; two within-run terms the normal', () => {
    // A = [1, 2, 3], B = [2, 3, 4]: var 1/3 each, se = √(2/3) = 0.816497, ν = (2/3)² / (2·(1/3)²/2) = 4
    const a = groupSpread({ y: [1, 2, 3], v: [null, null, null] });
    const b = groupSpread({ y: [2, 3, 4], v: [null, null, null] });
    const d = differenceOverRuns(a, b, 0.95);
    expect(d.d).toBe(1);
    expect(d.df).toBeCloseTo(4, 12);
    // 1 ± t(0.975, 4)·0.816497 = 1 ± 2.776445·0.816497 = 1 ± 2.266958
    expect(d.ci[0]).toBeCloseTo(1 - 2.266958, 5);
    expect(d.ci[1]).toBeCloseTo(1 + 2.266958, 5);
    const z = differenceOverRuns(groupSpread({ y: [0, 0], v: [0.5, 0.5] }), groupSpread({ y: [1, 1], v: [0.5, 0.5] }), 0.95);
    // se = √(0.25 + 0.25); z = 1.959964
    expect(z.df).toBe(Infinity);
    expect(z.ci[1] - 1).toBeCloseTo(1.959964 * Math.sqrt(0.5), 5);
  });
});

describe('grouped compare', () => {
  it('a 20% TTFT change over 3 + 3 runs: the interval of the geometric means by hand, worse, a regression beyond 5%', () => {
    // ln-values of A: ln 10 + [0, 0.01, −0.01] (s² = 0.0001); B = A × 1.2. ν = 4, level 95% (one figure).
    // half-width = 2.776445·√(2·0.0001/3) = 0.0226693; interval e^(ln 1.2 ± 0.0226693) − 1 = [+17.343%, +22.751%]
    const base = [0, 0.01, -0.01].map((e) => 10 * Math.exp(e));
    const A = base.map((x, i) => run(`a${i}`, { ttft_p50: x }));
    const B = base.map((x, i) => run(`b${i}`, { ttft_p50: 1.2 * x }));
    const c = compareGroups({ label: 'A', runs: A }, { label: 'B', runs: B }, OPTS);
    const f = c.figures[0]!;
    expect(f.delta).toBeCloseTo(0.2, 12);
    expect(f.ci![0]).toBeCloseTo(Math.exp(Math.log(1.2) - 0.0226693) - 1, 6);
    expect(f.ci![1]).toBeCloseTo(Math.exp(Math.log(1.2) + 0.0226693) - 1, 6);
    expect(f.a).toBeCloseTo(10, 12); // geometric mean
    expect(f).toMatchObject({ verdict: 'worse', regression: true });
    expect(c.groups.figures[0]).toMatchObject({ id: 'ttft_p50', df: expect.closeTo(4, 9) });
    expect(c.headline.text).toMatch(/^slower — worse: TTFT p50; biggest change: TTFT p50 \+20\.0%/);
  });

  it('the same change with runs ten times as spread is no significant change', () => {
    const base = [0, 0.1, -0.1].map((e) => 10 * Math.exp(e));
    const c = compareGroups(
      { label: 'A', runs: base.map((x, i) => run(`a${i}`, { ttft_p50: x })) },
      { label: 'B', runs: base.map((x, i) => run(`b${i}`, { ttft_p50: 1.2 * x })) },
      OPTS,
    );
    expect(c.figures[0]!.verdict).toBe('no significant change');
  });

  it('an error rate of 0 in every run is no change; a figure missing in one run is not judged', () => {
    const c = compareGroups(
      { label: 'A', runs: [run('a1', { error_rate: 0, ttft_p99: 5 }), run('a2', { error_rate: 0, ttft_p99: null })] },
      { label: 'B', runs: [run('b1', { error_rate: 0, ttft_p99: 6 }), run('b2', { error_rate: 0, ttft_p99: 6 })] },
      OPTS,
    );
    expect(c.figures.find((f) => f.figure.id === 'error_rate')).toMatchObject({ delta: 0, verdict: 'no significant change' });
    expect(c.figures.find((f) => f.figure.id === 'ttft_p99')).toMatchObject({ delta: null, verdict: 'n/a' });
  });
});
