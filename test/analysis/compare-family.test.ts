/**
 * compare's family-wise level (docs/compare.md §Family-wise level): the speed figures and accuracy
 * are one family sharing α = 1 − confidence by a weighted Bonferroni split — accuracy half, the
 * speed figures the other half equally; a part that is not tested hands its share to the other.
 * Hand-computed levels, and a paired accuracy drop whose McNemar p (2/64) lies between the two
 * levels: worse when accuracy has all of α, no significant change once it shares α with speed.
 */
import { describe, expect, it } from 'vitest';
import { buildSample } from '../../src/analysis/compare/bootstrap.js';
import { comparePair, familyLevels, type CompareOptions, type CompareSide } from '../../src/analysis/compare/compare.js';
import type { ShapeSource } from '../../src/analysis/compare/load-shape.js';
import type { QualitySample } from '../../src/analysis/compare/quality-delta.js';
import { renderCompareText } from '../../src/report/compare-report.js';
import { rec } from '../metrics/make-record.js';

describe('familyLevels (hand-computed)', () => {
  it('splits α = 5% between accuracy and the speed figures', () => {
    // 18 figures and accuracy: accuracy 2.5%, each figure 2.5%/18 = 0.13889%.
    const both = familyLevels(0.95, 18, true);
    expect(both.accuracy).toBeCloseTo(0.975, 12);
    expect(both.perFigure).toBeCloseTo(1 - 0.025 / 18, 12);
    expect(both.perFigure).toBeCloseTo(0.998611, 6);
    // No answer checks: the speed figures have all of α, as before accuracy existed (5%/18).
    expect(familyLevels(0.95, 18, false)).toEqual({ perFigure: 1 - 0.05 / 18, accuracy: null });
    // No speed verdicts (load shapes differ, vLLM file): accuracy has all of α.
    expect(familyLevels(0.95, 0, true).accuracy).toBeCloseTo(0.95, 12);
    // The whole family never spends more than α: (1 − accuracy) + k · (1 − perFigure) = α.
    for (const [c, k] of [[0.95, 18], [0.9, 3], [0.99, 1]] as const) {
      const l = familyLevels(c, k, true);
      expect(1 - l.accuracy! + k * (1 - l.perFigure)).toBeCloseTo(1 - c, 12);
    }
  });
});

/** 100 answered prompts; the first `wrong` fail. */
function quality(wrong: number): QualitySample {
  const byId = new Map<number, { pass: boolean; kind: string; text: string | null }>();
  for (let i = 0; i < 100; i++) byId.set(i, { pass: i >= wrong, kind: 'exact', text: null });
  return { answered: 100, passed: 100 - wrong, byId };
}

const SHAPE: ShapeSource = { target: { model: 'm', endpoint: '/v1/completions' }, load: { request_rate: 2 }, workload: { dataset: 'eval' }, input_lengths: null, output_lengths: null };

function side(label: string, withSample: boolean, q: QualitySample, ttft: number): CompareSide {
  // 40 requests, one every 500 ms, TTFT `ttft` ms and 4 tokens 10 ms apart.
  const records = Array.from({ length: 40 }, (_, i) => rec({ sent_ms: i * 500, chunks: [i * 500 + ttft, i * 500 + ttft + 10, i * 500 + ttft + 20, i * 500 + ttft + 30] }));
  return {
    label,
    kind: 'run',
    shape: SHAPE,
    figures: { ttft_p50: ttft, output_throughput: 8 },
    sample: withSample ? buildSample(records, { start_ms: 0, end_ms: 20_000 }, null, null) : null,
    quality: q,
    prompts: 'eval seed 1',
  };
}

const OPTS: CompareOptions = { resamples: 200, seed: 1, confidence: 0.95, minEffect: 0.02, force: false, failOnRegression: null, failOnQualityDrop: 0.01 };

describe('comparePair: accuracy in the family', () => {
  it('a drop with McNemar p = 2/64 is worse at 5%, not at its 2.5% share beside judged speed figures', () => {
    // A right on all 100, B wrong on 6 of them: b = 6, c = 0, p = 2 · (1/2)^6 = 0.03125.
    const alone = comparePair(side('A', false, quality(0), 20), side('B', false, quality(6), 20), OPTS);
    expect(alone.judged).toBe(false);
    expect(alone.quality!.p_value).toBeCloseTo(0.03125, 12);
    expect(alone.quality!.confidence).toBeCloseTo(0.95, 12);
    expect(alone.quality!.verdict).toBe('worse');
    expect(alone.quality!.regression).toBe(true);

    const family = comparePair(side('A', true, quality(0), 20), side('B', true, quality(6), 20), OPTS);
    expect(family.judged).toBe(true);
    // Two speed figures judged (TTFT p50, output tokens/s): each at 1 − 2.5%/2 = 98.75%; accuracy at 97.5%.
    expect(family.figures.filter((f) => f.ci !== null)).toHaveLength(2);
    expect(family.method!.per_figure_level).toBeCloseTo(0.9875, 12);
    expect(family.method!.accuracy_level).toBeCloseTo(0.975, 12);
    expect(family.quality!.confidence).toBeCloseTo(0.975, 12);
    expect(family.quality!.verdict).toBe('no significant change');
    expect(family.quality!.regression).toBe(false);
    // The paired interval at 97.5%: −0.06 ± z(0.9875) · √(6 − 36/100)/100 = −0.06 ± 2.241403 · 0.0237487.
    expect(family.quality!.ci![0]).toBeCloseTo(-0.06 - 2.241403 * 0.0237487, 5);
    expect(family.quality!.ci![1]).toBeCloseTo(-0.06 + 2.241403 * 0.0237487, 5);

    // Eight wrong: p = 2/256 < 2.5%, worse inside the family too.
    expect(comparePair(side('A', true, quality(0), 20), side('B', true, quality(8), 20), OPTS).quality!.verdict).toBe('worse');

    const text = renderCompareText([family]);
    expect(text).toContain('95% family-wise over 2 figures and accuracy (weighted Bonferroni: accuracy 97.5%, each figure 98.75%)');
    expect(text).toMatch(/change B − A: −6\.0 pts, 97\.5% interval/);
  });

  it('without answer checks the speed figures keep all of α', () => {
    const a = { ...side('A', true, quality(0), 20), quality: null };
    const b = { ...side('B', true, quality(0), 20), quality: null };
    const p = comparePair(a, b, OPTS);
    expect(p.method!.per_figure_level).toBeCloseTo(1 - 0.05 / 2, 12);
    expect(p.method!.accuracy_level).toBeNull();
    expect(renderCompareText([p])).toContain('95% family-wise over 2 figures (Bonferroni: 97.5% each)');
  });
});
