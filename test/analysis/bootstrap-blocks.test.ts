/**
 * compare's bootstrap through chunk weights (blockPercentiles) gives exactly what the plain
 * weighted scan gives for the same block resample — the scan is the independent oracle, itself
 * checked against numpy on the expanded multiset (compare-stats.test.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blockCounts, blockPercentiles, buildSample, resampleFigures, scratchFor, weightedPercentiles, withChunks } from '../../src/analysis/compare/bootstrap.js';
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
});
