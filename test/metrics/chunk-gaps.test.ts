/**
 * Chunk gaps visited per step of a shared timeline (metrics/chunk-gaps.ts) against the simple
 * oracle: every gap of every record, one by one. Same multiset, so the same count, extremes and
 * percentiles, whatever mix of stretch records and plain records; the ITL figures of a run
 * computed through it equal those of its plain records.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addChunkTokens, chunkGapVisitor, gapsSpreadingTokens } from '../../src/metrics/chunk-gaps.js';
import { itl } from '../../src/metrics/defs/itl.js';
import { summarize } from '../../src/metrics/stats.js';
import { summarizeBatches } from '../../src/metrics/stream-summary.js';
import { chunkGapsInto, RecordColumns } from '../../src/record/record-columns.js';
import { emptyRecord, type RequestRecord } from '../../src/record/record.js';
import { STEP_STRETCH, type SharedTimeline } from '../../src/record/step-stretch.js';

function timelineOf(ends: number[]): SharedTimeline {
  return { length: ends.length, at: (i) => ends[i]! };
}

/** A record whose chunks are steps first … first+count−1, with or without saying so. */
function onSteps(ends: number[], tl: SharedTimeline, first: number, count: number, shared: boolean): RequestRecord {
  const r = { ...emptyRecord(first, 0), status: 'ok' as const, chunk_ms: Float64Array.from(ends.slice(first, first + count)) };
  return shared ? Object.assign(r, { [STEP_STRETCH]: { timeline: tl, first, count } }) : r;
}

const allGaps = (rs: RequestRecord[]): number[] => rs.flatMap((r) => Array.from(r.chunk_ms.subarray(1), (v, i) => v - r.chunk_ms[i]!));

function expanded(rs: RequestRecord[]): number[] {
  const out: number[] = [];
  chunkGapVisitor(rs, itl.fill)((xs, n, ws) => {
    for (let i = 0; i < n; i++) for (let k = 0; k < (ws ? ws[i]! : 1); k++) out.push(xs[i]!);
  });
  return out;
}

const arb = fc
  .array(fc.double({ min: 0.001, max: 50, noNaN: true }), { minLength: 2, maxLength: 60 })
  .chain((steps) => {
    const ends: number[] = [];
    steps.reduce((t, d) => (ends.push(t + d), t + d), 0);
    const n = ends.length;
    const rec = fc.integer({ min: 0, max: n - 1 }).chain((first) => fc.record({ first: fc.constant(first), count: fc.integer({ min: 0, max: n - first }), shared: fc.boolean() }));
    return fc.record({ ends: fc.constant(ends), recs: fc.array(rec, { maxLength: 40 }) });
  });

describe('chunk gaps per step of a shared timeline', () => {
  it('visits the same multiset of gaps as every record one by one (property)', () => {
    fc.assert(
      fc.property(arb, ({ ends, recs }) => {
        const tl = timelineOf(ends);
        const rs = recs.map((x) => onSteps(ends, tl, x.first, x.count, x.shared));
        const want = allGaps(rs).sort((a, b) => a - b);
        expect(expanded(rs).sort((a, b) => a - b)).toEqual(want);
        if (want.length === 0) return;
        const got = summarizeBatches(chunkGapVisitor(rs, itl.fill));
        const ref = summarize(want);
        expect(got.count).toBe(ref.count);
        for (const k of ['min', 'max', 'p50', 'p90', 'p95', 'p99', 'p99_9'] as const) expect(got[k], k).toBe(ref[k]);
        expect(got.mean!).toBeCloseTo(ref.mean!, 9);
        expect(got.std!).toBeCloseTo(ref.std!, 9);
      }),
      { numRuns: 100 },
    );
  });

  it('output tokens per bucket: the same sums as spreading each record over its chunks (property)', () => {
    fc.assert(
      fc.property(arb, fc.integer({ min: 1, max: 40 }), ({ ends, recs }, width) => {
        const tl = timelineOf(ends);
        const rs = recs.map((x, i) => {
          const r = onSteps(ends, tl, x.first, x.count, x.shared);
          // Mostly one token per chunk (counted per step); some carry more, or have no chunks.
          // Whole shares: every sum is exact in any order, so the buckets must match exactly.
          r.output_tokens = i % 5 === 4 ? 3 * x.count : x.count;
          r.end_ms = x.count > 0 ? r.chunk_ms[x.count - 1]! : ends[x.first]!;
          return r;
        });
        const n = Math.ceil(ends[ends.length - 1]! / width) + 1;
        const bucketOf = (t: number): number => Math.min(n - 1, Math.floor(t / width));
        const want = new Float64Array(n);
        for (const r of rs) {
          const c = r.chunk_ms;
          if (c.length === 0) want[bucketOf(r.end_ms)]! += r.output_tokens;
          else for (const t of c) want[bucketOf(t)]! += r.output_tokens / c.length;
        }
        const got = new Float64Array(n);
        addChunkTokens(rs, bucketOf, got);
        expect(got).toEqual(want);
      }),
      { numRuns: 200 },
    );
  });

  it('output tokens per bucket of records without a shared timeline: the sums one by one, bit for bit (property)', () => {
    // Fractional shares (7 tokens over 3 chunks), times in order or not, plain records and column
    // views: added in record order, chunk by chunk, so the same sums as the oracle's to the last bit.
    const spec = fc.array(
      fc.record({ steps: fc.array(fc.integer({ min: -50, max: 3000 }), { maxLength: 40 }), start: fc.integer({ min: 0, max: 10_000 }), tokens: fc.integer({ min: 1, max: 500 }) }),
      { maxLength: 30 },
    );
    fc.assert(
      fc.property(spec, fc.integer({ min: 1, max: 40 }), (specs, width) => {
        const rs = specs.map((x, i) => {
          let t = x.start;
          const chunk_ms = Float64Array.from(x.steps, (d) => (t += d) / 1000);
          return { ...emptyRecord(i, 0), status: 'ok' as const, chunk_ms, output_tokens: x.tokens, end_ms: t / 1000 };
        });
        const n = 7;
        const bucketOf = (t: number): number => Math.min(n - 1, Math.max(0, Math.floor(t / width)));
        const want = new Float64Array(n);
        for (const r of rs) {
          const c = r.chunk_ms;
          if (c.length === 0) want[bucketOf(r.end_ms)]! += r.output_tokens;
          else for (const t of c) want[bucketOf(t)]! += r.output_tokens / c.length;
        }
        const got = new Float64Array(n);
        addChunkTokens(rs, bucketOf, got);
        expect(got).toEqual(want);
        const cols = new RecordColumns();
        for (const r of rs) cols.add(r);
        const fromColumns = new Float64Array(n);
        addChunkTokens(cols.records(), bucketOf, fromColumns);
        expect(fromColumns).toEqual(want);
      }),
      { numRuns: 200 },
    );
  });

  it('output tokens by hand: 7 tokens over 3 chunks, two of them in one bucket', () => {
    const r = { ...emptyRecord(0, 0), status: 'ok' as const, chunk_ms: Float64Array.of(0.5, 1.5, 2.5), output_tokens: 7 };
    const into = Float64Array.of(0.1, 0, 0);
    addChunkTokens([r], (t) => Math.min(2, Math.floor(t / 2)), into);
    // Bucket 0 gets 7/3 twice on top of 0.1, one addition at a time; bucket 1 gets 7/3 once.
    expect(Array.from(into)).toEqual([0.1 + 7 / 3 + 7 / 3, 7 / 3, 0]);
    // Whole shares near 2^53: one at a time, as the definition adds them (2^53 + 1 rounds to 2^53 each time).
    const big = Float64Array.of(2 ** 53 - 1);
    addChunkTokens([{ ...r, output_tokens: 3 }], () => 0, big);
    expect(big[0]).toBe(2 ** 53);
    const small = Float64Array.of(5);
    addChunkTokens([{ ...r, output_tokens: 6 }], () => 0, small);
    expect(small[0]).toBe(11);
  });

  it('by hand: three records over four steps', () => {
    const ends = [10, 13, 20, 21];
    const tl = timelineOf(ends);
    // Steps 0–3, 1–2 and 2–3 (gaps 3, 7, 1 | 7 | 1), and one plain record on steps 0–1 (gap 3).
    const rs = [onSteps(ends, tl, 0, 4, true), onSteps(ends, tl, 1, 2, true), onSteps(ends, tl, 2, 2, true), onSteps(ends, tl, 0, 2, false)];
    const batches: Array<[number[], number[] | null]> = [];
    chunkGapVisitor(rs, itl.fill)((xs, n, ws) => batches.push([Array.from(xs.subarray(0, n)), ws ? Array.from(ws.subarray(0, n)) : null]));
    expect(batches).toEqual([
      [[3], null],
      [[3, 7, 1], [1, 2, 2]],
    ]);
  });
});

describe('chunk gaps of records held in columns', () => {
  // Chunk times as records.jsonl writes them (whole µs, kept as µs) or any doubles (kept as doubles).
  const records = fc.array(
    fc.record({
      micros: fc.boolean(),
      start: fc.integer({ min: 0, max: 2 ** 40 }),
      steps: fc.array(fc.integer({ min: 0, max: 2 ** 24 }), { maxLength: 300 }),
      doubles: fc.array(fc.double({ min: -1e6, max: 1e9, noNaN: true }), { maxLength: 40 }),
    }),
    { maxLength: 40 },
  );
  const build = (specs: Array<{ micros: boolean; start: number; steps: number[]; doubles: number[] }>): RequestRecord[] =>
    specs.map((s, i) => {
      let t = s.start;
      const chunks = s.micros ? s.steps.map((d) => (t += d) / 1000) : s.doubles;
      return { ...emptyRecord(i, 0), status: 'ok' as const, chunk_ms: Float64Array.from(chunks), output_tokens: chunks.length };
    });

  it('are the differences of the chunk times, bit for bit, and give the same ITL figures as plain records (property)', () => {
    fc.assert(
      fc.property(records, (specs) => {
        const plain = build(specs);
        const cols = new RecordColumns();
        for (const r of plain) cols.add(r);
        const views = cols.records();
        const out = new Float64Array(400);
        for (let i = 0; i < plain.length; i++) {
          const c = plain[i]!.chunk_ms;
          const n = chunkGapsInto(views[i]!, out, 3);
          expect(Array.from(out.subarray(3, 3 + n))).toEqual(Array.from(c.subarray(1), (v, k) => v - c[k]!));
        }
        // Many records per batch from the columns against one record at a time, through the general path.
        const oneByOne = summarizeBatches((emit) => {
          for (const r of plain) emit(out, itl.fill(r, out, 0));
        });
        expect(summarizeBatches(chunkGapVisitor(views, itl.fill))).toEqual(oneByOne);
      }),
      { numRuns: 60 },
    );
  });
});

describe('chunk gaps visited while spreading output tokens (gapsSpreadingTokens)', () => {
  const spec = fc.array(
    fc.record({
      steps: fc.array(fc.integer({ min: 0, max: 3000 }), { maxLength: 30 }),
      start: fc.integer({ min: 0, max: 20_000 }),
      tokens: fc.integer({ min: 0, max: 90 }),
      gap: fc.boolean(),
      columns: fc.boolean(),
    }),
    { maxLength: 30 },
  );
  const values = (visit: (emit: (xs: Float64Array, n: number, ws: Float64Array | null) => void) => void): number[] => {
    const out: number[] = [];
    visit((xs, n, ws) => {
      expect(ws).toBeNull();
      out.push(...xs.subarray(0, n));
    });
    return out;
  };

  it('the gaps of the gap records in order on every visit, and the token records spread once, bit for bit as apart (property)', () => {
    fc.assert(
      fc.property(spec, fc.integer({ min: 1, max: 20 }), fc.boolean(), (specs, width, visitFirst) => {
        const cols = new RecordColumns();
        const all = specs.map((x, i) => {
          let t = x.start;
          const chunk_ms = Float64Array.from(x.steps, (d) => (t += d) / 1000);
          const r: RequestRecord = { ...emptyRecord(i, 0), status: 'ok', chunk_ms, output_tokens: x.tokens, end_ms: t / 1000 + 1 };
          if (!x.columns) return r;
          cols.add(r);
          return cols.view(cols.length - 1);
        });
        const gaps = all.filter((_, i) => specs[i]!.gap);
        const take = (r: RequestRecord) => r.output_tokens % 3 !== 0;
        const n = 9;
        const bucketOf = (t: number) => Math.min(n - 1, Math.max(0, Math.floor(t / width)));
        const want = new Float64Array(n);
        addChunkTokens(all.filter(take), bucketOf, want);
        const into = new Float64Array(n);
        const fused = gapsSpreadingTokens(all, gaps, itl.fill, { take, bucketOf, into })!;
        const apart = values(chunkGapVisitor(gaps, itl.fill));
        if (visitFirst) {
          expect(values(fused.visit)).toEqual(apart);
          expect(values(fused.visit)).toEqual(apart);
        }
        fused.done();
        fused.done();
        expect(into).toEqual(want);
        expect(values(fused.visit)).toEqual(apart);
        expect(into).toEqual(want);
      }),
      { numRuns: 150 },
    );
  });

  it('declines gap records that are not a sublist of all in its order, and records on a shared timeline', () => {
    const a = { ...emptyRecord(0, 0), chunk_ms: Float64Array.of(1, 2) };
    const b = { ...emptyRecord(1, 0), chunk_ms: Float64Array.of(3, 5) };
    const spread = { take: () => true, bucketOf: () => 0, into: new Float64Array(1) };
    expect(gapsSpreadingTokens([a, b], [b, a], itl.fill, spread)).toBeNull();
    expect(gapsSpreadingTokens([a], [b], itl.fill, spread)).toBeNull();
    const ends = [1, 2, 3];
    const tl = timelineOf(ends);
    expect(gapsSpreadingTokens([a, onSteps(ends, tl, 0, 2, true)], [a], itl.fill, spread)).toBeNull();
    expect(gapsSpreadingTokens([a, b], [a, b], itl.fill, spread)).not.toBeNull();
  });
});

