import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors/user-error.js';
import { LengthDistSchema, WorkloadSpecSchema, createRng, createWorkload, parseLengthDist } from '../../src/workload/index.js';
import type { LengthDist } from '../../src/workload/index.js';
import { lengthSampler, resolveEmpirical } from '../../src/workload/lengths.js';
import { tempDir } from '../helpers/temp-dir.js';

function draw(dist: LengthDist, n = 20000, seed = 42): number[] {
  const s = lengthSampler(LengthDistSchema.parse(dist), createRng(seed));
  return Array.from({ length: n }, s);
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const std = (xs: number[]) => {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / xs.length);
};

describe('length distributions (seed 42, 20 000 draws)', () => {
  it('fixed', () => {
    expect(new Set(draw({ kind: 'fixed', value: 300 }))).toEqual(new Set([300]));
  });

  it('uniform: integers on [min, max], mean (min+max)/2, std (max-min+1)/√12 approx', () => {
    const xs = draw({ kind: 'uniform', min: 10, max: 90 });
    expect(Math.min(...xs)).toBe(10);
    expect(Math.max(...xs)).toBe(90);
    expect(xs.every(Number.isInteger)).toBe(true);
    expect(Math.abs(mean(xs) - 50)).toBeLessThan(0.6); // σ/√n ≈ 23.4/141 ≈ 0.17
    expect(Math.abs(std(xs) - 81 / Math.sqrt(12))).toBeLessThan(0.5);
  });

  it('normal: mean and std as given, clipped to [min, max]', () => {
    const xs = draw({ kind: 'normal', mean: 500, std: 100 });
    expect(Math.abs(mean(xs) - 500)).toBeLessThan(3); // σ/√n ≈ 0.7
    expect(Math.abs(std(xs) - 100)).toBeLessThan(2);
    const clipped = draw({ kind: 'normal', mean: 500, std: 100, min: 400, max: 550 });
    expect(Math.min(...clipped)).toBe(400);
    expect(Math.max(...clipped)).toBe(550);
    // P(X < 400) = Φ(−1) ≈ 0.1587 of draws land on the lower bound.
    const atMin = clipped.filter((x) => x === 400).length / clipped.length;
    expect(Math.abs(atMin - 0.1587)).toBeLessThan(0.01);
  });

  it('lognormal: mean and std of the lengths as given, right-skewed, bounds hold', () => {
    const xs = draw({ kind: 'lognormal', mean: 1000, std: 500 }, 50000);
    expect(Math.abs(mean(xs) / 1000 - 1)).toBeLessThan(0.02);
    expect(Math.abs(std(xs) / 500 - 1)).toBeLessThan(0.06);
    const sorted = [...xs].sort((a, b) => a - b);
    expect(sorted[xs.length >> 1]!).toBeLessThan(1000); // median exp(μ) = 1000/√1.25 ≈ 894
    expect(Math.abs(sorted[xs.length >> 1]! - 894)).toBeLessThan(15);
    const b = draw({ kind: 'lognormal', mean: 1000, std: 500, min: 200, max: 1500 });
    expect(Math.min(...b)).toBeGreaterThanOrEqual(200);
    expect(Math.max(...b)).toBe(1500);
  });

  it('empirical: resamples the given values with their frequencies', () => {
    const xs = draw({ kind: 'empirical', values: [10, 10, 10, 40] });
    expect(new Set(xs)).toEqual(new Set([10, 40]));
    expect(Math.abs(mean(xs) - 17.5)).toBeLessThan(0.5);
    expect(new Set(draw({ kind: 'empirical', values: [10, 40, 90], max: 50 }))).toEqual(new Set([10, 40, 50]));
  });

  it('empirical from a file (one column with a header, or comma/space separated)', async () => {
    const dir = tempDir('len');
    writeFileSync(join(dir, 'a.csv'), 'tokens\n5\n7\n9\n');
    writeFileSync(join(dir, 'b.txt'), '1, 2 3\n4');
    writeFileSync(join(dir, 'bad.txt'), '1\n2\nabc\n');
    expect(await resolveEmpirical({ kind: 'empirical', path: join(dir, 'a.csv') }, 'input_len')).toMatchObject({ values: [5, 7, 9] });
    expect(await resolveEmpirical({ kind: 'empirical', path: join(dir, 'b.txt') }, 'input_len')).toMatchObject({ values: [1, 2, 3, 4] });
    await expect(resolveEmpirical({ kind: 'empirical', path: join(dir, 'bad.txt') }, 'input_len')).rejects.toThrow(`${join(dir, 'bad.txt')}:3:`);
    await expect(resolveEmpirical({ kind: 'empirical', path: join(dir, 'none') }, 'input_len')).rejects.toThrow(UserError);
  });

  it("a distribution's own seed makes it independent of the run seed", () => {
    const d = LengthDistSchema.parse({ kind: 'normal', mean: 100, std: 30, seed: 9 });
    const a = Array.from({ length: 20 }, lengthSampler(d, createRng(1)));
    const b = Array.from({ length: 20 }, lengthSampler(d, createRng(2)));
    expect(a).toEqual(b);
    const c = Array.from({ length: 20 }, lengthSampler({ ...d, seed: undefined }, createRng(1)));
    expect(c).not.toEqual(a);
  });

  it('input and output lengths are drawn separately and drive prompts and max_tokens', async () => {
    const spec = WorkloadSpecSchema.parse({
      input_len: { kind: 'uniform', min: 20, max: 60 },
      output_len: { kind: 'lognormal', mean: 200, std: 100, min: 1, max: 1000 },
    });
    const w = await createWorkload(spec, { seed: 5, endpointKind: 'completions' });
    const items = Array.from({ length: 5000 }, () => w.next());
    const ins = items.map((i) => i.prompt_tokens as number);
    const outs = items.map((i) => i.max_tokens as number);
    expect(Math.min(...ins)).toBe(20);
    expect(Math.max(...ins)).toBe(60);
    expect(Math.abs(mean(ins) - 40)).toBeLessThan(1);
    expect(Math.abs(mean(outs) / 200 - 1)).toBeLessThan(0.05);
    expect(Math.min(...outs)).toBeGreaterThanOrEqual(1);
    for (const it of items.slice(0, 50)) expect(it.prompt.split(' ')).toHaveLength(it.prompt_tokens as number);
  });
});

describe('distribution flag syntax', () => {
  it.each([
    ['256', { kind: 'fixed', value: 256 }],
    ['fixed:value=8,seed=3', { kind: 'fixed', value: 8, seed: 3 }],
    ['uniform:100-1000', { kind: 'uniform', min: 100, max: 1000 }],
    ['uniform:min=1,max=2', { kind: 'uniform', min: 1, max: 2 }],
    ['normal:mean=512,std=128,min=1,max=2048', { kind: 'normal', mean: 512, std: 128, min: 1, max: 2048 }],
    ['lognormal:mean=300,std=200,seed=7', { kind: 'lognormal', mean: 300, std: 200, seed: 7 }],
    ['empirical:path=lens.txt,max=4096', { kind: 'empirical', path: 'lens.txt', max: 4096 }],
    ['empirical:dataset', { kind: 'empirical', from_dataset: true }],
  ])('%s', (text, want) => {
    expect(parseLengthDist(text)).toEqual(want);
    expect(LengthDistSchema.parse(want)).toEqual(want);
  });

  it.each(['normal:mean=5', 'uniform:5', 'weird', 'normal:mean=-1,std=2'])('%s is one clear error', (text) => {
    expect(() => parseLengthDist(text, '--input-len')).toThrow(/^--input-len: /);
  });
});
