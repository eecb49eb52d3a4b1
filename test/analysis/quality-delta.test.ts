import { describe, expect, it } from 'vitest';
import { compareQuality, firstDifference, mcnemarExactP, normalQuantile, type QualitySample } from '../../src/analysis/compare/quality-delta.js';

/** A sample of n answered prompts (ids 0…n−1); `pass(i)` says which passed, `text(i)` the answer. */
function sample(n: number, pass: (i: number) => boolean, text: (i: number) => string | null = () => null, kind = 'exact'): QualitySample {
  const byId = new Map<number, { pass: boolean; kind: string; text: string | null }>();
  let passed = 0;
  for (let i = 0; i < n; i++) {
    byId.set(i, { pass: pass(i), kind, text: text(i) });
    if (pass(i)) passed++;
  }
  return { answered: n, passed, byId };
}

const opts = { confidence: 0.95, samePrompts: true, failOnDrop: null };

describe('statistics', () => {
  it('normalQuantile gives the familiar z values', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
    expect(normalQuantile(0.995)).toBeCloseTo(2.575829, 5);
    expect(normalQuantile(0.5)).toBeCloseTo(0, 9);
    expect(normalQuantile(0.01)).toBeCloseTo(-2.326348, 5);
  });

  it('mcnemarExactP matches the binomial by hand', () => {
    // b = 0, c = 6: 2 · (1/2)^6
    expect(mcnemarExactP(0, 6)).toBeCloseTo(0.03125, 12);
    // b = 1, c = 9: 2 · (1 + 10)/1024
    expect(mcnemarExactP(1, 9)).toBeCloseTo(22 / 1024, 12);
    expect(mcnemarExactP(5, 5)).toBe(1);
    expect(mcnemarExactP(0, 0)).toBe(1);
    // far past 2^-1074: no underflow to 0 or NaN
    const p = mcnemarExactP(1000, 1400);
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThan(1e-9);
  });

  it('firstDifference counts words from 1', () => {
    expect(firstDifference('the answer is 42', 'the answer is 42')).toBeNull();
    expect(firstDifference('the answer is 42', 'the answer was 42')).toBe(3);
    expect(firstDifference('a b', 'a b c')).toBe(3);
    expect(firstDifference('x', 'y')).toBe(1);
  });
});

describe('compareQuality', () => {
  it('paired: a planted drop of 10 of 100 answers is significant, with the hand-computed interval', () => {
    const A = sample(100, () => true);
    const B = sample(100, (i) => i >= 10);
    const q = compareQuality(A, B, { ...opts, failOnDrop: 0.01 });
    expect(q.method).toBe('paired');
    expect(q.pairs).toEqual({ n: 100, a_only: 10, b_only: 0 });
    expect(q.delta).toBeCloseTo(-0.1, 12);
    // se = √(10 − 100/100)/100 = 0.03; ± 1.95996 · 0.03
    expect(q.ci![0]).toBeCloseTo(-0.1 - 1.959964 * 0.03, 5);
    expect(q.ci![1]).toBeCloseTo(-0.1 + 1.959964 * 0.03, 5);
    expect(q.p_value).toBeCloseTo(2 / 1024, 12);
    expect(q.verdict).toBe('worse');
    expect(q.regression).toBe(true);
    expect(compareQuality(A, B, { ...opts, failOnDrop: 0.2 }).regression).toBe(false);
  });

  it('paired: changes that cancel out are no significant change', () => {
    const q = compareQuality(
      sample(100, (i) => i % 2 === 0),
      sample(100, (i) => (i < 10 ? i % 2 === 1 : i % 2 === 0)),
      opts,
    );
    expect(q.pairs).toEqual({ n: 100, a_only: 5, b_only: 5 });
    expect(q.delta).toBe(0);
    expect(q.verdict).toBe('no significant change');
    expect(q.regression).toBe(false);
  });

  it('pairing sees a consistent drop that the unpaired comparison cannot', () => {
    // A: 50 of 100 right; B gets 8 of A's right answers wrong and nothing else changes.
    const A = sample(100, (i) => i < 50);
    const B = sample(100, (i) => i >= 8 && i < 50);
    const paired = compareQuality(A, B, opts);
    expect(paired.verdict).toBe('worse');
    expect(paired.p_value).toBeCloseTo(2 / 256, 12);
    const unpaired = compareQuality(A, B, { ...opts, samePrompts: false });
    expect(unpaired.method).toBe('unpaired');
    expect(unpaired.unpaired_reason).toMatch(/same prompts/);
    expect(unpaired.delta).toBeCloseTo(-0.08, 12);
    expect(unpaired.verdict).toBe('no significant change');
  });

  it("unpaired: Newcombe's hybrid score interval on his worked example (56/70 vs 48/80)", () => {
    const q = compareQuality(sample(80, (i) => i < 48), sample(70, (i) => i < 56), { ...opts, samePrompts: false });
    expect(q.delta).toBeCloseTo(0.2, 12);
    // Newcombe (1998), method 10: 0.0524 to 0.3339
    expect(q.ci![0]).toBeCloseTo(0.0524, 3);
    expect(q.ci![1]).toBeCloseTo(0.3339, 3);
    expect(q.verdict).toBe('better');
  });

  it('different checks under the same ids are not paired', () => {
    const q = compareQuality(sample(10, () => true, undefined, 'exact'), sample(10, () => true, undefined, 'numeric'), opts);
    expect(q.method).toBe('unpaired');
    expect(q.unpaired_reason).toMatch(/different checks/);
  });

  it('identical outputs and the median first difference over paired answers', () => {
    // 6 prompts: 3 identical answers, the others differ at words 1, 2 and 4.
    const a = ['w x y z', 'w x y z', 'w x y z', 'w x y z', 'w x y z', 'w x y z'];
    const b = ['w x y z', 'w x y z', 'w x y z', 'q x y z', 'w q y z', 'w x y q'];
    const q = compareQuality(sample(6, () => true, (i) => a[i]!), sample(6, () => true, (i) => b[i]!), opts);
    expect(q.outputs).toEqual({ compared: 6, identical: 3, share: 0.5, first_difference_median: 2 });
  });
});
