/**
 * The chunk store (record/chunk-store.ts) against a plain Float64Array oracle: random chunk times
 * as whole µs with gaps at and around old and new width bounds (0, 0xF000, 65535, 65536, 63·2^16, 0xFFF0000, 2^31, 2^32 − 1, huge),
 * going back, zero and one chunk, and doubles that are not whole µs — every time reads back the
 * same double, every gap is the difference of those doubles, and count, first and the count up to every chunk time and between them agree.
 * Streams like a loaded server's (gaps near a few levels, jittered by each residual width's bounds)
 * reach every slot and code width; one hand-coded record pins the bytes themselves.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChunkStore, encodeGaps } from '../../src/record/chunk-store.js';

const gapArb = fc.oneof(
  fc.constantFrom(0, 1, 0xefff, 0xf000, 65534, 65535, 65536, 63 * 65536 - 1, 63 * 65536, 0xfffffff, 0xfff0000 - 1, 0xfff0000, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 45),
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

/** Gaps near a few levels (what a stream under load looks like), off by up to each code width's bounds and past them. */
const streamArb = fc
  .record({
    start: fc.integer({ min: 0, max: 2 ** 40 }),
    levels: fc.array(fc.integer({ min: 0, max: 5_000_000 }), { minLength: 1, maxLength: 6 }),
    steps: fc.array(fc.tuple(fc.nat(), fc.oneof(fc.integer({ min: -17, max: 17 }), fc.integer({ min: -2050, max: 2050 }), fc.constantFrom(-2049, -2048, 2047, 2048, -16, 15, 16))), { maxLength: 60 }),
  })
  .map(({ start, levels, steps }) => {
    const out = [start];
    for (const [l, jitter] of steps) out.push(out.at(-1)! + levels[l % levels.length]! + jitter);
    return Float64Array.from(out);
  });

/** A record's input: µs (as the reader's scan gives), or doubles (chunk_ms), whole µs or not. */
const inputArb = fc.oneof(
  microsArb.map((m) => ({ micros: m, times: Float64Array.from(m, (v) => v / 1000) })),
  streamArb.map((m) => ({ micros: m, times: Float64Array.from(m, (v) => v / 1000) })),
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

  it('codes gaps against 4 recent-gap slots as the format says, by hand', () => {
    const micros = Float64Array.from([7000, 77000, 78000, 79005, 148995, 148990, 5148990, 5150490, 5350490, 5351980]);
    const p = new Uint8Array(100);
    const end = encodeGaps(micros, micros.length, p, 3);
    const f64 = new Uint8Array(Float64Array.of(5_000_000).buffer);
    expect(Array.from(p.subarray(3, end))).toEqual([
      0xc1, 0x11, 0x70, // 70000 = 0x11170, a literal, into slot next = 0: slots 70000, 0, 0, 0; next = 1
      0x97, 0xd0, // 1000 against slot 1 (0, the lowest of the tied zeros): zig 2000 in 12 bits; slots 70000, 1000, 0, 0
      0x2a, // 1005 against slot 1: zig(5) = 10
      0x13, // 69990 against slot 0: zig(−10) = 19; slots 69990, 1005, 0, 0
      0x49, // −5 (going back) against slot 2: zig(−5) = 9; slots 69990, 1005, −5, 0
      0xff, ...f64, // 5e6: past a literal, into slot next = 1; next = 2
      0xbb, 0xb8, // 1500 against slot 3: zig 3000 = 0xBB8; slots 69990, 5e6, −5, 1500
      0xc3, 0x0d, 0x40, // 200000 = 0x30D40 into slot next = 2; next = 3
      0x73, // 1490 against slot 3: zig(−10) = 19
    ]);
    const store = new ChunkStore();
    expect(store.putMicros(0, micros, micros.length)).toBe(false);
    expect(Array.from(store.times(0, new Float64Array(10)))).toEqual(Array.from(micros, (v) => v / 1000));
    const gaps = new Float64Array(9);
    store.gaps(0, gaps, 0);
    expect(Array.from(gaps)).toEqual(Array.from(micros.subarray(1), (v, k) => v / 1000 - micros[k]! / 1000));
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
