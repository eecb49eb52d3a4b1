/**
 * `compare` as a library call (issue 22): the options through the zod schema with units.ts's share
 * grammar, and the comparison object returned, nothing printed. A planted change of known size:
 * every TTFT of B is A's × 1.2, so TTFT p50 moved by exactly +20%.
 */
import { readdirSync, readFileSync, writeFileSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { compare, simulate, UserError } from '../../src/index.js';
import { CompareFlagsSchema, CompareOptionsSchema, parseCommandOptions } from '../../src/config/command-options.js';
import { plantTtftRegression } from '../helpers/planted-runs.js';
import { renderCompareText } from '../../src/report/compare-report.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('compare options', () => {
  const parse = (o: Record<string, unknown>) => parseCommandOptions(CompareFlagsSchema, o);

  it('defaults as the CLI documents them', () => {
    expect(parse({})).toEqual({ resamples: 1000, seed: 0, confidence: 0.95, minEffect: 0.02, force: false, vary: [], allowInvalid: false, failOnRegression: null, failOnQualityDrop: null, junit: null, markdown: null, html: null, json: false, againstHistory: false, resultsDir: 'results' });
  });

  it('reads shares as before the move: 5% and 0.05 alike, and more than 100% as a threshold', () => {
    expect(parse({ failOnRegression: '5%', minEffect: '0.05', confidence: '90 %', failOnQualityDrop: '1%' })).toMatchObject({ failOnRegression: 0.05, minEffect: 0.05, confidence: 0.9, failOnQualityDrop: 0.01 });
    expect(parse({ failOnRegression: '150%' }).failOnRegression).toBe(1.5);
    // units.ts's grammar: rounded to the decimal written, and a leading dot accepted.
    expect(parse({ failOnRegression: '32.8%' }).failOnRegression).toBe(0.328);
    expect(parse({ minEffect: '.5' }).minEffect).toBe(0.5);
  });

  it('refuses a bad value in one line naming the flag', () => {
    expect(() => parse({ confidence: '100%' })).toThrow(/^--confidence: expected a share in \(0%, 100%\), e\.g\. 95%, got "100%"$/);
    expect(() => parse({ failOnQualityDrop: 'lots' })).toThrow(/^--fail-on-quality-drop: expected a share/);
    expect(() => parse({ failOnRegression: '-5%' })).toThrow(/^--fail-on-regression: /);
    expect(() => parse({ resamples: '0' })).toThrow(/^--resamples: expected an integer ≥ 1, got "0"$/);
    expect(() => parse({ seed: '-1' })).toThrow(/^--seed: expected an integer ≥ 0/);
    expect(() => parse({ junit: true })).toThrow(/^--junit: give the file to write, e\.g\. --junit compare\.xml$/);
  });

  it('the API options are the judging ones: no output files', () => {
    expect(Object.keys(CompareOptionsSchema.shape).sort()).toEqual(['allowInvalid', 'confidence', 'failOnQualityDrop', 'failOnRegression', 'force', 'minEffect', 'resamples', 'seed', 'vary']);
  });
});

describe('compare()', () => {
  let a: string;
  let b: string;
  let slow: string;
  let other: string;
  beforeAll(async () => {
    const root = tempDir('compare-api');
    for (const [name, seed] of [['a', 3], ['b', 3], ['c', 4]] as const) {
      await simulate({ name, load: { num_prompts: 200, request_rate: 8, seed }, workload: { random_input_len: 256, random_output_len: 32, random_range_ratio: 0.5 }, output: { result_dir: root, report: false } });
    }
    [a, b, other] = ['a', 'b', 'c'].map((n) => join(root, readdirSync(root).find((d) => d.endsWith(`-${n}`))!)) as [string, string, string];
    slow = join(root, 'slow');
    plantTtftRegression(b, slow);
  });

  it('returns the comparison object; the same run under two names changes nothing', () => {
    const logs: string[] = [];
    const r = compare([a, b], { resamples: 100, failOnRegression: '5%' }, { onLog: (l) => logs.push(l) });
    expect(r.schema).toBe('infermeter.compare/1');
    expect(r.pairs).toHaveLength(1);
    const judged = r.pairs[0]!.figures.filter((f) => f.delta !== null);
    expect(judged.length).toBeGreaterThan(10);
    expect(judged.every((f) => f.delta === 0 && f.verdict === 'no significant change' && !f.regression)).toBe(true);
    expect(r.gates.filter((g) => g.name === 'validity').map((g) => g.pass)).toEqual([true, true]);
    expect(r.gates.every((g) => g.pass)).toBe(true);
    expect(logs).toEqual(['compare: 100 bootstrap resamples per pair…']);
  });

  it('finds the planted +20% TTFT p50 and marks it a regression beyond 5%', () => {
    const r = compare([a, slow], { resamples: 100, failOnRegression: 0.05 });
    const ttft = r.pairs[0]!.figures.find((f) => f.figure.id === 'ttft_p50')!;
    expect(ttft.delta).toBeCloseTo(0.2, 9);
    expect(ttft.verdict).toBe('worse');
    expect(ttft.regression).toBe(true);
    expect(r.gates.find((g) => g.name === 'TTFT p50 (ms)')!.pass).toBe(false);
  });

  it('refuses an invalid run unless allowInvalid', () => {
    const bad = join(a, '..', 'invalid');
    cpSync(a, bad, { recursive: true });
    const result = JSON.parse(readFileSync(join(bad, 'result.json'), 'utf8')) as { validity: { valid: boolean; reasons: string[] } };
    result.validity = { ...result.validity, valid: false, reasons: ['the client fell behind'] };
    writeFileSync(join(bad, 'result.json'), JSON.stringify(result));
    expect(() => compare([a, bad], { resamples: 20 })).toThrow(UserError);
    expect(() => compare([a, bad], { resamples: 20 })).toThrow(/invalid run \(the client fell behind\) \(allowInvalid: true compares it anyway\)$/);
    expect(compare([a, bad], { resamples: 20, allowInvalid: true }).gates.find((g) => g.suite === bad)!.pass).toBe(false);
  });

  it('states for every figure the smallest change it could detect, and the requests per run that would resolve the threshold', () => {
    // Two seeds of one configuration, 200 requests each: n = 200. Threshold 1% (--fail-on-regression), --min-effect 2%.
    const r = compare([a, other], { resamples: 200, failOnRegression: '1%' });
    const p = r.pairs[0]!;
    expect(p.judged).toBe(true);
    let resolved = 0;
    for (const f of p.figures) {
      if (f.ci === null) {
        expect(f.detectable).toBeNull();
        continue;
      }
      const half = (f.ci[1] - f.ci[0]) / 2;
      expect(f.detectable).toBeCloseTo(f.figure.delta === 'relative' ? Math.max(half, 0.02) : half, 12);
      if (f.verdict === 'no significant change' && f.figure.delta === 'relative' && half > 0.01) {
        // The half-width shrinks as 1/√n: n · (half / 1%)² requests per run bring it to 1%.
        expect(f.requests_needed).toBe(Math.ceil(200 * (half / 0.01) ** 2));
        resolved++;
      } else expect(f.requests_needed).toBeNull();
    }
    expect(resolved).toBeGreaterThan(0);
    // The text names each such figure with its count (a half-width of 5% at 1% needs 200 · 5² = 5,000).
    const ttft = p.figures.find((f) => f.figure.id === 'ttft_p50')!;
    expect(ttft.requests_needed).not.toBeNull();
    expect(renderCompareText(r.pairs)).toContain(`TTFT p50 ≈ ${ttft.requests_needed!.toLocaleString('en-US')}`);
    expect(renderCompareText(r.pairs)).toMatch(/To resolve a ±1\.0% change \(--fail-on-regression\) where none was seen, requests per run at the same load: /);
  });
});
