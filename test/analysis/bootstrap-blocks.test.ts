/**
 * compare's block bootstrap: non-overlapping blocks of requests, each figure's values kept block
 * by block (block-values.ts). The oracles are the plain definitions: a resample's percentile is
 * the percentile of the expanded multiset in which each request counts as often as its block was
 * drawn (weightedPercentiles, itself checked against numpy in compare-stats.test.ts), with the
 * same draws replayed from the same seed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blockShape, blockStart, buildSample, drawBlocks, resampleFigures, scratchFor, weightedPercentiles } from '../../src/analysis/compare/bootstrap.js';
import { BlockValuesBuilder, cutPoints, newSelection, rankValue, startFigure, weightedSelect, type BlockValues, type Selection } from '../../src/analysis/compare/block-values.js';
import { LATENCY_KEYS, PERCENTILES } from '../../src/analysis/compare/key-figures.js';
import { SLO_METRICS, type PooledMetricDef, type RequestMetricDef } from '../../src/metrics/index.js';
import { createRng } from '../../src/util/rng.js';
import { argsortFloat64 } from '../../src/util/argsort.js';
import { rec } from '../metrics/make-record.js';
import { perMillionTokens } from '../../src/metrics/cost.js';

/** A figure built from values per block (blocks in order), cut points from all of its values. */
function built(perBlock: readonly (readonly number[])[], valuesPerChunk?: number): BlockValues {
  const all = perBlock.flat();
  const b = new BlockValuesBuilder(perBlock.length, cutPoints(Float64Array.from(all), all.length, perBlock.length, valuesPerChunk));
  for (const xs of perBlock) {
    for (const x of xs) b.push(x);
    b.endBlock();
  }
  return b.finish();
}

/** Block b's entries as sorted "value×count" strings. */
function entriesOf(s: BlockValues, b: number): string[] {
  const out: string[] = [];
  for (let j = s.first[b]!; j < s.first[b + 1]!; j++) out.push(`${s.value[j]}×${s.count[j]}`);
  return out.sort();
}

/** The distinct values of xs with their counts, as entriesOf writes them. */
function distinctOf(xs: readonly number[]): string[] {
  const m = new Map<number, number>();
  for (const x of xs) m.set(x, (m.get(x) ?? 0) + 1);
  return [...m].map(([x, c]) => `${x}×${c}`).sort();
}

/** A selection with these block weights (zero weights left out, as drawBlocks does). */
function selectionOf(weights: readonly number[], widest: number): Selection {
  const sel = newSelection(weights.length, widest);
  weights.forEach((w, b) => {
    if (w > 0) {
      sel.blocks[sel.size] = b;
      sel.weight[sel.size++] = w;
    }
  });
  return sel;
}

/** The value at each rank of the multiset with block b's values repeated weights[b] times, by sorting it. */
function expandedRanks(perBlock: readonly (readonly number[])[], weights: readonly number[]): number[] {
  const all: number[] = [];
  perBlock.forEach((xs, b) => xs.forEach((x) => all.push(...Array<number>(weights[b]!).fill(x))));
  return all.sort((a, b) => a - b);
}

describe('block values: the value at a weighted rank', () => {
  it('equals the sorted expanded multiset at every rank, for any chunking and block weights (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 40 }), { minLength: 1, maxLength: 12 }),
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 12, maxLength: 12 }),
        fc.integer({ min: 1, max: 8 }),
        (ints, w, valuesPerChunk) => {
          // quarters and a few non-integers: many ties within and across blocks
          const perBlock = ints.map((xs) => xs.map((x) => (x % 7 === 0 ? x / 4 + 0.1 : x / 4)));
          const weights = perBlock.map((_, b) => w[b]!);
          const s = built(perBlock, valuesPerChunk);
          const sel = selectionOf(weights, s.widest);
          const want = expandedRanks(perBlock, weights);
          expect(startFigure(s, sel)).toBe(want.length);
          // ascending ranks (the cached chunk read again), then descending (searched afresh)
          const got = want.map((_, r) => rankValue(s, sel, r));
          expect(got).toEqual(want);
          for (let r = want.length - 1; r >= 0; r--) expect(rankValue(s, sel, r)).toBe(want[r]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('by hand: blocks {3, 1, 3} and {2, 2}, weights 2 and 1', () => {
    // one value a chunk: cut points 2 and 3, chunks (−∞, 2), [2, 3), [3, ∞)
    const b = new BlockValuesBuilder(2, Float64Array.from([2, 3]));
    [3, 1, 3].forEach((x) => b.push(x));
    b.endBlock();
    [2, 2].forEach((x) => b.push(x));
    b.endBlock();
    const s = b.finish();
    // blocks this small are not hashed: every value an entry of count 1, grouped by chunk:
    // block 0 → 1 (chunk 0), 3, 3 (chunk 2); block 1 → 2, 2 (chunk 1)
    expect(Array.from(s.value)).toEqual([1, 3, 3, 2, 2]);
    expect(Array.from(s.count)).toEqual([1, 1, 1, 1, 1]);
    expect(Array.from(s.first)).toEqual([0, 3, 5]);
    // rows c = 0 … 3, each [block 0, block 1]
    expect(Array.from(s.at)).toEqual([0, 3, 1, 3, 1, 5, 3, 5]);
    expect(Array.from(s.below)).toEqual([0, 0, 1, 0, 1, 2, 3, 2]);
    // both blocks' values below each chunk: none, the 1, the 1 and the 2s, all five
    expect(Array.from(s.cumulative)).toEqual([0, 1, 3, 5]);
    // expanded: 1, 1, 2, 2, 3, 3, 3, 3 (block 0 twice)
    const sel = selectionOf([2, 1], s.widest);
    expect(startFigure(s, sel)).toBe(8);
    expect([0, 1, 2, 3, 4, 7].map((r) => rankValue(s, sel, r))).toEqual([1, 1, 2, 2, 3, 3]);
  });

  it('many values with many ties (hashed), few ties (given up in the trial), a block that gives up late, and a tied block after: each block holds its distinct values with their counts', () => {
    const rng = createRng(5);
    const tied = Array.from({ length: 5000 }, () => rng.int(0, 40) / 8);
    const distinct = Array.from({ length: 3000 }, () => rng.next() * 100);
    // the first 400 tied (hashing begins), then distinct ones: more than half distinct in the end;
    // the next block holds the tied value too (a count left in the table would show there)
    const mixed = [...Array.from({ length: 400 }, () => 2.5), ...Array.from({ length: 1200 }, () => rng.next())];
    const perBlock = [tied, distinct, mixed, tied.slice(0, 300)];
    const s = built(perBlock);
    // hashed blocks: one entry a distinct value; the others: one a value
    expect(entriesOf(s, 0)).toEqual(distinctOf(tied));
    expect(entriesOf(s, 1)).toEqual(distinct.map((x) => `${x}×1`).sort());
    expect(entriesOf(s, 2)).toEqual(mixed.map((x) => `${x}×1`).sort());
    expect(entriesOf(s, 3)).toEqual(distinctOf(tied.slice(0, 300)));
    // and the ranks through the counts: every 97th rank against the expanded multiset
    const weights = [2, 1, 0, 3];
    const want = expandedRanks(perBlock, weights);
    const sel = selectionOf(weights, s.widest);
    expect(startFigure(s, sel)).toBe(want.length);
    for (let r = 0; r < want.length; r += 97) expect(rankValue(s, sel, r)).toBe(want[r]);
  });

  it("index rows: at and below rise from a block's first entry (and 0) to its end (and its size); chunk c's entries lie between its cut points", () => {
    const perBlock = [Array.from({ length: 200 }, (_, i) => i % 50), Array.from({ length: 90 }, (_, i) => 100 - i)];
    const all = perBlock.flat();
    const cuts = cutPoints(Float64Array.from(all), all.length, 2, 4);
    const b = new BlockValuesBuilder(2, cuts);
    for (const xs of perBlock) {
      xs.forEach((x) => b.push(x));
      b.endBlock();
    }
    const s = b.finish();
    expect(s.chunks).toBe(cuts.length + 1);
    expect(s.chunks).toBeGreaterThan(10);
    for (let k = 0; k < 2; k++) {
      expect(s.at[k]).toBe(s.first[k]);
      expect(s.below[k]).toBe(0);
      expect(s.at[s.chunks * 2 + k]).toBe(s.first[k + 1]);
      expect(s.below[s.chunks * 2 + k]).toBe(perBlock[k]!.length);
      for (let c = 0; c < s.chunks; c++) {
        expect(s.at[(c + 1) * 2 + k]!).toBeGreaterThanOrEqual(s.at[c * 2 + k]!);
        let values = 0;
        for (let j = s.at[c * 2 + k]!; j < s.at[(c + 1) * 2 + k]!; j++) {
          if (c > 0) expect(s.value[j]!).toBeGreaterThanOrEqual(cuts[c - 1]!);
          if (c < cuts.length) expect(s.value[j]!).toBeLessThan(cuts[c]!);
          values += s.count[j]!;
        }
        expect(s.below[(c + 1) * 2 + k]! - s.below[c * 2 + k]!).toBe(values);
      }
    }
    // cumulative: the values of both blocks below chunk c's lower cut point
    for (let c = 0; c <= s.chunks; c++) {
      const bound = c === 0 ? -Infinity : c === s.chunks ? Infinity : cuts[c - 1]!;
      expect(s.cumulative[c]).toBe(all.filter((x) => x < bound).length);
    }
  });

  it('weightedSelect: the smallest value whose weight at or below it exceeds t (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 5 })), { minLength: 1, maxLength: 200 }), fc.nat(), (pairs, pick) => {
        const expanded = pairs.flatMap(([v, w]) => Array<number>(w).fill(v)).sort((a, b) => a - b);
        const t = pick % expanded.length;
        const values = Float64Array.from(pairs, ([v]) => v);
        const weights = Float64Array.from(pairs, ([, w]) => w);
        expect(weightedSelect(values, weights, pairs.length, t)).toBe(expanded[t]);
      }),
      { numRuns: 500 },
    );
  });
});

describe('blocks of requests', () => {
  it('B = ⌈n/⌈√n⌉⌉ blocks cover 0 … n − 1 in order, sizes differing by at most one', () => {
    for (const n of [1, 2, 3, 10, 99, 100, 101, 1000, 100_000]) {
      const { len, blocks } = blockShape(n);
      expect(len).toBe(Math.ceil(Math.sqrt(n)));
      expect(blocks).toBe(Math.ceil(n / len));
      expect(blockStart(0, n, blocks)).toBe(0);
      expect(blockStart(blocks, n, blocks)).toBe(n);
      const sizes = Array.from({ length: blocks }, (_, b) => blockStart(b + 1, n, blocks) - blockStart(b, n, blocks));
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      expect(Math.min(...sizes)).toBeGreaterThanOrEqual(1);
    }
    // n = 10: L = 4, B = 3 blocks: 0–2, 3–5, 6–9
    expect([0, 1, 2, 3].map((b) => blockStart(b, 10, 3))).toEqual([0, 3, 6, 10]);
  });

  it('drawBlocks: B draws with replacement (counts sum to B, every block reachable), the same as B rng.int(0, B − 1) calls', () => {
    const blocks = 7;
    const rng = createRng(9);
    const again = createRng(9);
    const sel = newSelection(blocks, 0);
    const counts = new Int32Array(blocks);
    const seen = new Set<number>();
    for (let k = 0; k < 200; k++) {
      drawBlocks(rng, blocks, counts, sel);
      const want = new Int32Array(blocks);
      for (let i = 0; i < blocks; i++) want[again.int(0, blocks - 1)]! += 1;
      expect(Array.from(counts)).toEqual(Array.from(want));
      let sum = 0;
      for (let i = 0; i < sel.size; i++) {
        expect(sel.weight[i]).toBe(want[sel.blocks[i]!]);
        sum += sel.weight[i]!;
        seen.add(sel.blocks[i]!);
      }
      expect(sum).toBe(blocks);
      expect(sel.size).toBe(want.filter((c) => c > 0).length);
    }
    expect(seen.size).toBe(blocks);
  });
});

describe('resampleFigures', () => {
  const defs = { ttft: SLO_METRICS.ttft_ms as RequestMetricDef, tpot: SLO_METRICS.tpot_ms as RequestMetricDef, e2el: SLO_METRICS.e2el_ms as RequestMetricDef };
  const itl = SLO_METRICS.itl_ms as PooledMetricDef;

  it('equals the plain definition on the records, seed for seed: weights per request from the replayed block draws, percentiles of every value, errors over requests drawn (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.array(fc.integer({ min: 1, max: 12 }), { maxLength: 15 }), fc.integer({ min: 0, max: 9 })), { minLength: 1, maxLength: 70 }),
        fc.nat(),
        (reqs, seed) => {
          // request i: sent at 7i, first token after 100 + (kind ≡ latency class), gaps in half-ms (ties); kind 0 fails
          const records = reqs.map(([gs, kind], i) => {
            if (kind === 0) return rec({ id: i, sent_ms: i * 7, end_ms: i * 7 + 3, status: 'error', error_class: 'http_5xx' });
            const chunks = [i * 7 + 100 + kind * 5];
            for (const g of gs) chunks.push(chunks[chunks.length - 1]! + g / 2);
            return rec({ id: i, sent_ms: i * 7, chunks });
          });
          const n = records.length;
          const end = Math.max(...records.map((r) => r.end_ms));
          const sample = buildSample(records, { start_ms: 0, end_ms: end }, null, null);
          const { blocks } = blockShape(n);
          const rng = createRng(seed);
          const again = createRng(seed);
          const scratch = scratchFor(sample);
          // every value with its request, sorted (the oracle's input)
          const column = (key: (typeof LATENCY_KEYS)[number]) => {
            const values: number[] = [];
            const owners: number[] = [];
            records.forEach((r, i) => {
              if (r.status !== 'ok') return;
              if (key === 'itl') {
                const out = new Float64Array(itl.count(r));
                itl.fill(r, out, 0);
                for (const v of out) {
                  values.push(v);
                  owners.push(i);
                }
              } else {
                const v = defs[key].value(r);
                if (v !== null) {
                  values.push(v);
                  owners.push(i);
                }
              }
            });
            const idx = argsortFloat64(values);
            return { values: Float64Array.from(idx, (i) => values[i]!), owner: Int32Array.from(idx, (i) => owners[i]!) };
          };
          const columns = Object.fromEntries(LATENCY_KEYS.map((k) => [k, column(k)])) as Record<(typeof LATENCY_KEYS)[number], ReturnType<typeof column>>;
          for (let r = 0; r < 3; r++) {
            const got = resampleFigures(sample, rng, scratch, false);
            const drawn = new Int32Array(blocks);
            for (let k = 0; k < blocks; k++) drawn[again.int(0, blocks - 1)]! += 1;
            const weight = Int32Array.from({ length: n }, (_, i) => {
              let b = 0;
              while (blockStart(b + 1, n, blocks) <= i) b++;
              return drawn[b]!;
            });
            for (const key of LATENCY_KEYS) {
              const want = weightedPercentiles(columns[key], weight, PERCENTILES);
              PERCENTILES.forEach((p, j) => expect(got[`${key}_p${p}`]).toBe(want[j]));
            }
            let errors = 0;
            let requests = 0;
            records.forEach((rr, i) => {
              requests += weight[i]!;
              if (rr.status === 'error') errors += weight[i]!;
            });
            expect(got.error_rate).toBe(errors / requests);
            // the resample's bucket draws, to stay in step
            for (let b = 0; b < sample.buckets.ok.length; b++) again.int(0, sample.buckets.ok.length - 1);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('throughputs: the 1-second buckets drawn after the blocks, n draws of n buckets', () => {
    // 20 requests, one ending in each second 0 … 19, 1 output token each … k + 1 in second k
    const records = Array.from({ length: 20 }, (_, k) => rec({ id: k, sent_ms: k * 1000, chunks: Array.from({ length: k + 1 }, (_, j) => k * 1000 + 100 + j) }));
    const sample = buildSample(records, { start_ms: 0, end_ms: 20_000 }, null, null);
    expect(sample.buckets.ok.length).toBe(20);
    const rng = createRng(4);
    const again = createRng(4);
    const got = resampleFigures(sample, rng, scratchFor(sample), false);
    for (let k = 0; k < sample.blocks; k++) again.int(0, sample.blocks - 1);
    let tokens = 0;
    for (let k = 0; k < 20; k++) tokens += again.int(0, 19) + 1;
    expect(got.output_throughput).toBe(tokens / 20);
    expect(got.request_throughput).toBe(1);
  });

  it('goodput and cost per 1M tokens: the drawn buckets’ good completions and total tokens', () => {
    // request k ends in second k with k + 1 output tokens and 3 prompt tokens; TTFT 100 ms for even k, 600 for odd: an SLO of 300 ms holds for the even ones
    const records = Array.from({ length: 20 }, (_, k) => {
      const first = k * 1000 + 100 + (k % 2) * 500;
      return rec({ id: k, sent_ms: k * 1000, prompt_tokens: 3, chunks: Array.from({ length: k + 1 }, (_, j) => first + j) });
    });
    const slos = [{ metric: 'ttft_ms' as const, threshold_ms: 300 }];
    const sample = buildSample(records, { start_ms: 0, end_ms: 20_000 }, slos, 0.5);
    const rng = createRng(9);
    const again = createRng(9);
    const got = resampleFigures(sample, rng, scratchFor(sample), true);
    for (let k = 0; k < sample.blocks; k++) again.int(0, sample.blocks - 1);
    let good = 0;
    let ok = 0;
    let total = 0;
    for (let j = 0; j < 20; j++) {
      const k = again.int(0, 19);
      ok += 1;
      if (k % 2 === 0) good += 1;
      total += k + 1 + 3;
    }
    expect(got.request_throughput).toBe(ok / 20);
    expect(got.goodput).toBe(good / 20);
    expect(got.total_token_throughput).toBe(total / 20);
    expect(got.cost_per_1m_tokens).toBe(perMillionTokens(0.5 * 20, total));
    // without goodput asked for: null
    expect(resampleFigures(sample, createRng(9), scratchFor(sample), false).goodput).toBeNull();
  });
});
