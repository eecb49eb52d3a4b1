/**
 * compare's bootstrap through chunk weights (blockPercentiles) gives exactly what the plain
 * weighted scan gives for the same block resample — the scan is the independent oracle, itself
 * checked against numpy on the expanded multiset (compare-stats.test.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blockCounts, blockPercentiles, bucketShares, buildSample, resampleFigures, scratchFor, valueBuckets, weightedPercentiles, withChunks, type RunSample } from '../../src/analysis/compare/bootstrap.js';
import { createRng } from '../../src/util/rng.js';
import { argsortFloat64 } from '../../src/util/argsort.js';
import { rec } from '../metrics/make-record.js';

const PS = [0, 1, 50, 90, 99, 99.9, 100];

describe('blockPercentiles', () => {
  it('equals the plain scan for every chunk size, data and resample (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 120 }),
        fc.array(fc.tuple(fc.double({ min: 0, max: 100, noNaN: true }), fc.nat()), { minLength: 1, maxLength: 600 }),
        fc.integer({ min: 0, max: 6 }),
        fc.nat(),
        (n, pairs, shift, seed) => {
          // values owned by requests 0 … n−1, a few of them tied
          const values = pairs.map(([v], i) => (i % 5 === 0 ? Math.round(v) : v));
          const owners = pairs.map(([, o]) => o % n);
          const idx = argsortFloat64(values);
          const sorted = { values: Float64Array.from(idx, (i) => values[i]!), owner: Int32Array.from(idx, (i) => owners[i]!) };
          const chunked = withChunks(sorted, n, shift);
          const len = Math.ceil(Math.sqrt(n));
          const starts = new Int32Array(Math.ceil(n / len));
          const weight = new Int32Array(n);
          const rng = createRng(seed);
          for (let r = 0; r < 5; r++) {
            blockCounts(rng, n, weight, starts);
            expect(blockPercentiles(chunked, weight, starts, len, PS)).toEqual(weightedPercentiles(sorted, weight, PS));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('blockCounts gives the block starts it counted: each start covers len requests', () => {
    const n = 50;
    const weight = new Int32Array(n);
    const starts = new Int32Array(Math.ceil(n / Math.ceil(Math.sqrt(n))));
    blockCounts(createRng(3), n, weight, starts);
    const again = new Int32Array(n);
    for (const s of starts) for (let i = s; i < s + Math.ceil(Math.sqrt(n)); i++) again[i]! += 1;
    expect(Array.from(again)).toEqual(Array.from(weight));
    // the same draws as without starts: the resample for a seed does not change
    expect(Array.from(blockCounts(createRng(3), n, new Int32Array(n)))).toEqual(Array.from(weight));
  });

  it('block starts reach both ends, 0 and n − len, and never beyond (every request can be drawn)', () => {
    // n = 10: len = ⌈√10⌉ = 4, ⌈10/4⌉ = 3 blocks, starts uniform on 0 … 6
    const n = 10;
    const rng = createRng(11);
    const weight = new Int32Array(n);
    const starts = new Int32Array(3);
    const seen = new Set<number>();
    for (let k = 0; k < 500; k++) {
      blockCounts(rng, n, weight, starts);
      for (const s of starts) seen.add(s);
      // counts sum to blocks × len = 12, all inside the array
      expect(weight.reduce((a, b) => a + b, 0)).toBe(12);
    }
    expect([...seen].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it("a resample's error rate is Σ k_i·error_i / Σ k_i of its block counts (the plain sum over requests)", () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 200 }), fc.nat(), (failed, seed) => {
        const records = failed.map((f, i) => (f ? rec({ id: i, sent_ms: i, end_ms: i + 5, status: 'error', error_class: 'http_5xx' }) : rec({ id: i, sent_ms: i, chunks: [i + 10, i + 20] })));
        const sample = buildSample(records, { start_ms: 0, end_ms: failed.length + 30 }, null, null);
        const rng = createRng(seed);
        const again = createRng(seed);
        const k = new Int32Array(failed.length);
        for (let r = 0; r < 3; r++) {
          const got = resampleFigures(sample, rng, scratchFor(sample), false).error_rate;
          blockCounts(again, failed.length, k);
          // the rest of the resample's draws (its 1-second buckets), to stay in step with rng
          for (let b = 0; b < sample.buckets.ok.length; b++) again.int(0, sample.buckets.ok.length - 1);
          let errors = 0;
          let drawn = 0;
          failed.forEach((f, i) => {
            errors += f ? k[i]! : 0;
            drawn += k[i]!;
          });
          expect(got).toBe(errors / drawn);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('value buckets (unsorted, any cut points, ties on the cuts) give what the full sort gives (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 80 }),
        fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 80 }),
        fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 12 }),
        fc.nat(),
        (n, perRequest, cutAt, seed) => {
          // values in their owners' order (as buildSample collects them), few distinct: many ties
          const rng = createRng(seed);
          const values: number[] = [];
          const owners: number[] = [];
          perRequest.forEach((g, i) => {
            if (i >= n) return;
            for (let k = 0; k < g; k++) {
              values.push(rng.int(0, 40) / 4);
              owners.push(i);
            }
          });
          const cuts = cutAt.map((c) => c / 4);
          const bucketed = valueBuckets(Float64Array.from(values), Int32Array.from(owners), n, cuts);
          const idx = argsortFloat64(values);
          const sorted = { values: Float64Array.from(idx, (i) => values[i]!), owner: Int32Array.from(idx, (i) => owners[i]!) };
          const len = Math.ceil(Math.sqrt(n));
          const starts = new Int32Array(Math.ceil(n / len));
          const weight = new Int32Array(n);
          for (let r = 0; r < 5; r++) {
            blockCounts(rng, n, weight, starts);
            expect(blockPercentiles(bucketed, weight, starts, len, PS)).toEqual(weightedPercentiles(sorted, weight, PS));
          }
          // the buckets read were sorted in place: still the same multiset of (value, owner)
          const pairs = (vs: Float64Array, os: Int32Array) => Array.from(vs, (v, i) => `${v}/${os[i]}`).sort();
          expect(pairs(bucketed.values, bucketed.owner)).toEqual(pairs(sorted.values, sorted.owner));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('value buckets by hand: cut points 2 and 5 over 1 … 6 owned by requests 0, 0, 1, 1, 2, 2', () => {
    const s = valueBuckets(Float64Array.from([6, 1, 5, 2, 4, 3]), Int32Array.from([0, 0, 1, 1, 2, 2]), 3, [2, 5]);
    // buckets [−∞, 2) = {1}, [2, 5) = {2, 4, 3}, [5, ∞) = {6, 5}, each in any order, owners alongside
    expect(Array.from(s.chunks!.start)).toEqual([0, 1, 4, 6]);
    const bucket = (c: number) => {
      const [from, to] = [s.chunks!.start[c]!, s.chunks!.start[c + 1]!];
      return Array.from(s.values.subarray(from, to), (v, i) => `${v}/${s.owner[from + i]}`).sort();
    };
    expect([0, 1, 2].map(bucket)).toEqual([['1/0'], ['2/1', '3/2', '4/2'], ['5/1', '6/0']]);
    // below[x × 3 + c]: values of bucket c owned by requests before x
    expect(Array.from(s.chunks!.below)).toEqual([0, 0, 0, 1, 0, 1, 1, 1, 2, 1, 3, 2]);
    // every request drawn once (one block of 2 from 0, one from 1: request 1 twice): 1,2,2,3,4,5,5,6 → p50 = 3.5
    const weight = Int32Array.from([1, 2, 1]);
    expect(blockPercentiles(s, weight, Int32Array.from([0, 1]), 2, [50, 0, 100])).toEqual([3.5, 1, 6]);
  });

  it('a value outside the probed range still goes to its own bucket (the first guess is corrected downwards)', () => {
    // 70,000 values: the probe reads every 2nd, so it misses the smallest (0.25, at position 1)
    const n = 100;
    const values = Float64Array.from({ length: 70_000 }, (_, j) => (j === 1 ? 0.25 : 1 + (j % 97)));
    const owners = Int32Array.from({ length: 70_000 }, (_, j) => Math.floor(j / 700));
    const s = valueBuckets(values, owners, n, [0.5, 50]);
    expect(Array.from(s.chunks!.start.subarray(0, 2))).toEqual([0, 1]);
    const weight = new Int32Array(n).fill(1);
    expect(blockPercentiles(s, weight, Int32Array.from({ length: 10 }, (_, b) => b * 10), 10, [0, 100])).toEqual([0.25, 97]);
  });

  it('cut shares: a ladder ±2048/v·4^k up to 5% around each percentile, and the coarse grid', () => {
    // v = 204,800: d = 1%, 4% (16% is past 5%)
    const got = bucketShares(204_800);
    const want = [0.125, 0.25, 0.375, 0.46, 0.49, 0.5, 0.51, 0.54, 0.625, 0.75, 0.86, 0.875, 0.89, 0.9, 0.91, 0.94, 0.95, 0.98, 0.99];
    expect(got.length).toBe(want.length);
    got.forEach((x, i) => expect(x).toBeCloseTo(want[i]!, 12));
    // 1,000× longer: steps of 1e−5, 4e−5, … — as many values a step near the percentile
    expect(bucketShares(204_800_000).filter((x) => Math.abs(x - 0.5) < 1e-4).length).toBe(5);
  });

  it('resampleFigures on a built sample (ITL in value buckets) equals the same resamples over fully sorted ITL, seed for seed', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.integer({ min: 1, max: 30 }), { maxLength: 20 }), { minLength: 1, maxLength: 60 }), fc.nat(), (gaps, seed) => {
        const records = gaps.map((gs, i) => {
          const chunks = [i * 7 + 100];
          for (const g of gs) chunks.push(chunks[chunks.length - 1]! + g / 2);
          return rec({ id: i, sent_ms: i * 7, chunks });
        });
        const end = Math.max(...records.map((r) => r.end_ms));
        const sample = buildSample(records, { start_ms: 0, end_ms: end }, null, null);
        const itl = sample.latency.itl;
        const idx = argsortFloat64(itl.values);
        const plain: RunSample = { ...sample, latency: { ...sample.latency, itl: { values: Float64Array.from(idx, (i) => itl.values[i]!), owner: Int32Array.from(idx, (i) => itl.owner[i]!) } } };
        const ra = createRng(seed);
        const rb = createRng(seed);
        const sa = scratchFor(sample);
        const sb = scratchFor(plain);
        for (let r = 0; r < 4; r++) expect(resampleFigures(sample, ra, sa, false)).toEqual(resampleFigures(plain, rb, sb, false));
      }),
      { numRuns: 150 },
    );
  });
});
