/**
 * The chunk store (record/chunk-store.ts) against a plain Float64Array oracle: random chunk times
 * as whole µs with gaps at and around each width's bounds (0, 0xF000, 65535, 65536, 0xFFF0000, 2^31, 2^32 − 1, huge),
 * going back, zero and one chunk, and doubles that are not whole µs — every time reads back the
 * same double, every gap is the difference of those doubles, and count, first and the count up to every chunk time and between them agree.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChunkStore } from '../../src/record/chunk-store.js';

const gapArb = fc.oneof(
  fc.constantFrom(0, 1, 0xefff, 0xf000, 65534, 65535, 65536, 0xfffffff, 0xfff0000 - 1, 0xfff0000, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 45),
  fc.integer({ min: 0, max: 70000 }), fc.integer({ min: 0, max: 2 ** 29 }),
  fc.integer({ min: -70000, max: -1 }),
);

/** µs lists: a start and gaps (the sum kept safe so the oracle is µs / 1000 exactly). */
const microsArb = fc
  .record({ start: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2 ** 40 }), fc.constant(2 ** 52)), gaps: fc.array(gapArb, { maxLength: 40 }) })
  .map(({ start, gaps }) => {
    const out = [start];
    for (const g of gaps) out.push(out.at(-1)! + g);
    return Float64Array.from(out.filter((v) => Number.isSafeInteger(v)));
  });

/** A record's input: µs (as the reader's scan gives), or doubles (chunk_ms), whole µs or not. */
const inputArb = fc.oneof(
  microsArb.map((m) => ({ micros: m, times: Float64Array.from(m, (v) => v / 1000) })),
  microsArb.map((m) => ({ micros: null, times: Float64Array.from(m, (v) => v / 1000) })),
  fc
    .array(fc.double({ min: 0, max: 1e7, noNaN: true }), { maxLength: 20 })
    .map((a) => ({ micros: null, times: Float64Array.from(a) })),
);

function oracleCount(c: Float64Array, t: number): number {
  let n = 0;
  for (const v of c) if (v <= t) n++;
  return n;
}

function isSorted(c: Float64Array): boolean {
  for (let k = 1; k < c.length; k++) if (!(c[k]! >= c[k - 1]!)) return false;
  return true;
}

describe('ChunkStore', () => {
  it('reads back every record as the Float64Array it was given', () => {
    fc.assert(
      fc.property(fc.array(inputArb, { maxLength: 30 }), (inputs) => {
        const store = new ChunkStore();
        const sorted = inputs.map((x, i) => (x.micros ? store.putMicros(i, x.micros, x.micros.length) : store.putTimes(i, x.times)));
        const out = new Float64Array(100);
        inputs.forEach((x, i) => {
          const c = x.times;
          expect(store.countOf(i)).toBe(c.length);
          expect(Array.from(store.times(i, out))).toEqual(Array.from(c));
          expect(sorted[i]).toBe(isSorted(c));
          const gaps = new Float64Array(c.length + 2);
          expect(store.gaps(i, gaps, 2)).toBe(Math.max(0, c.length - 1));
          for (let k = 1; k < c.length; k++) expect(gaps[2 + k - 1]).toBe(c[k]! - c[k - 1]!);
          if (c.length > 0) expect(store.first(i)).toBe(c[0]);
          if (!sorted[i]) return;
          const probes = [-Infinity, Infinity];
          for (let k = 0; k < c.length; k++) probes.push(c[k]!, c[k]! - 1e-4, c[k]! + 1e-4, k > 0 ? (c[k]! + c[k - 1]!) / 2 : c[k]! - 1);
          for (const t of probes) expect(store.countAtMost(i, t)).toBe(oracleCount(c, t));
        });
      }),
      { numRuns: 300 },
    );
  });

  it('keeps µs whose gaps do not sum back exactly (beyond 2^53) as doubles', () => {
    const store = new ChunkStore();
    const m = Float64Array.from([2 ** 53 + 2, 1, 2 ** 60, 3]);
    store.putMicros(0, m, m.length);
    expect(Array.from(store.times(0, new Float64Array(4)))).toEqual(Array.from(m, (v) => v / 1000));
  });

  it('keeps a record longer than a page whole, and its neighbours', () => {
    const store = new ChunkStore();
    const long = Float64Array.from({ length: (1 << 20) + 5 }, (_, k) => k * 70000);
    const short = Float64Array.from([5, 6, 65541]);
    store.putMicros(0, short, 3);
    store.putMicros(1, long, long.length);
    store.putMicros(2, short, 3);
    const out = new Float64Array(long.length);
    expect(Array.from(store.times(0, out))).toEqual([0.005, 0.006, 65.541]);
    const back = store.times(1, out);
    expect(back.length).toBe(long.length);
    expect(back.every((v, k) => v === long[k]! / 1000)).toBe(true);
    expect(store.countAtMost(1, long[1000]! / 1000)).toBe(1001);
    expect(Array.from(store.times(2, out))).toEqual([0.005, 0.006, 65.541]);
  });
});
