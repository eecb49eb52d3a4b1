import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { peak, secondBuckets } from '../../src/metrics/peaks.js';
import { rec } from './make-record.js';

describe('secondBuckets', () => {
  it('spreads output tokens over chunks, scaled to output_tokens', () => {
    // 10 tokens in 4 chunks → 2.5 per chunk; chunks at 100, 900 (bucket 0) and 1100, 1200 (bucket 1)
    const r = rec({ sent_ms: 0, chunks: [100, 900, 1100, 1200], output_tokens: 10 });
    const b = secondBuckets([r], 0, 1200);
    expect([...b.output_tokens]).toEqual([5, 5]);
    expect(peak(b.output_tokens)).toBe(5);
  });

  it('ignores failed requests for tokens but not for concurrency', () => {
    const ok = rec({ sent_ms: 0, chunks: [500], end_ms: 600 });
    const failed = rec({ sent_ms: 100, end_ms: 700, status: 'error', error_class: 'disconnect', output_tokens: 50 });
    failed.chunk_ms = Float64Array.from([200, 300]);
    const b = secondBuckets([ok, failed], 0, 700);
    expect([...b.output_tokens]).toEqual([1]);
    expect([...b.max_concurrency]).toEqual([2]);
  });

  it('treats in-flight intervals as half-open: back-to-back requests never overlap', () => {
    // A [0, 1000), B [1000, 2000): at 1000 A has ended as B starts
    const b = secondBuckets([rec({ sent_ms: 0, end_ms: 1000 }), rec({ sent_ms: 1000, end_ms: 2000 })], 0, 2000);
    expect([...b.max_concurrency]).toEqual([1, 1]);
  });

  it('carries a long request through the buckets it spans', () => {
    // A [0, 3500) spans buckets 0..3; B [1200, 1300) joins it in bucket 1
    const b = secondBuckets([rec({ sent_ms: 0, end_ms: 3500 }), rec({ sent_ms: 1200, end_ms: 1300 })], 0, 3500);
    expect([...b.max_concurrency]).toEqual([1, 2, 1, 1]);
  });

  it('does not count requests that ended exactly at a bucket start in that bucket', () => {
    // A [0, 1000) and B [500, 1000) both end at 1000, C [1500, 1600) → bucket 1 peaks at 1
    const rs = [rec({ sent_ms: 0, end_ms: 1000 }), rec({ sent_ms: 500, end_ms: 1000 }), rec({ sent_ms: 1500, end_ms: 1600 })];
    expect([...secondBuckets(rs, 0, 1600).max_concurrency]).toEqual([2, 1]);
  });

  it('puts an event at exactly the window end into the last bucket', () => {
    // window 0 → 2000: ⌈2⌉ = 2 buckets; the chunk at 2000 lands in bucket 1
    const b = secondBuckets([rec({ sent_ms: 0, chunks: [2000] })], 0, 2000);
    expect([...b.output_tokens]).toEqual([0, 1]);
  });

  it('agrees with a brute-force peak concurrency and conserves tokens', () => {
    const interval = fc
      .tuple(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 20 }))
      .map(([s, d, tokens]) => {
        const chunks = Array.from({ length: Math.min(tokens, 5) }, (_, i) => s + (d * (i + 1)) / 5);
        return rec({ sent_ms: s, end_ms: s + d, chunks, output_tokens: tokens, first_token_ms: chunks[0] ?? null });
      });
    fc.assert(
      fc.property(fc.array(interval, { minLength: 1, maxLength: 40 }), (rs) => {
        const start = Math.min(...rs.map((r) => r.sent_ms));
        const end = Math.max(...rs.map((r) => r.end_ms));
        const b = secondBuckets(rs, start, end);
        // brute force: the count over [s, e) is maximal at some send instant
        let want = 0;
        for (const x of rs) {
          const t = x.sent_ms;
          want = Math.max(want, rs.filter((r) => r.sent_ms <= t && t < r.end_ms).length);
        }
        expect(peak(b.max_concurrency)).toBe(want);
        const sum = b.output_tokens.reduce((a, v) => a + v, 0);
        const tokens = rs.reduce((a, r) => a + r.output_tokens, 0);
        expect(sum).toBeCloseTo(tokens, 9);
      }),
    );
  });

  it('gives the same per-second concurrency whether the sends come in order or not (property)', () => {
    const interval = fc
      .tuple(fc.integer({ min: 0, max: 4000 }), fc.integer({ min: 0, max: 2500 }))
      .map(([s, d]) => rec({ sent_ms: s, end_ms: s + d }));
    fc.assert(
      fc.property(fc.array(interval, { minLength: 1, maxLength: 40 }), (rs) => {
        const inOrder = [...rs].sort((a, b) => a.sent_ms - b.sent_ms);
        const start = inOrder[0]!.sent_ms;
        const end = Math.max(...rs.map((r) => r.end_ms));
        // In the generated order (mostly not by send: the sorted copy's path) and in send order (read in place).
        const want = [...secondBuckets(rs, start, end).max_concurrency];
        expect([...secondBuckets(inOrder, start, end).max_concurrency]).toEqual(want);
        // The brute-force peak, as above, over the records in send order.
        let peakWant = 0;
        for (const x of rs) peakWant = Math.max(peakWant, rs.filter((r) => r.sent_ms <= x.sent_ms && x.sent_ms < r.end_ms).length);
        expect(peak(secondBuckets(inOrder, start, end).max_concurrency)).toBe(peakWant);
      }),
    );
  });
});
