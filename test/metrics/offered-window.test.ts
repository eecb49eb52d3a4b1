/** Throughput over the offered window (first send → last send): hand-computed cases. */
import { describe, expect, it } from 'vitest';
import { offeredWindow } from '../../src/metrics/offered-window.js';
import { computeMetrics, measuredWindow } from '../../src/metrics/compute.js';
import { rec } from './make-record.js';

describe('offered window', () => {
  it('counts ok requests ended inside it and the share of each one’s tokens that arrived inside it', () => {
    const records = [
      rec({ sent_ms: 0, chunks: [500, 1000] }), // 2 chunks, usage 8 tokens: all inside
      rec({ sent_ms: 1000, chunks: [1500, 2000, 3000, 3500], output_tokens: 8 }), // 2 of 4 chunks by 2000 (inclusive): 4 tokens
      rec({ sent_ms: 2000, end_ms: 2600, status: 'error', error_class: 'stalled', chunks: [2100] }), // failed: no tokens
      rec({ sent_ms: 1200, end_ms: 1800, chunks: [], output_tokens: 5 }), // non-streaming: all 5 at end_ms 1800
    ];
    records[0]!.output_tokens = 8;
    const o = offeredWindow(records, measuredWindow(records));
    expect(o).toEqual({ start_ms: 0, end_ms: 2000, duration_s: 2, request_per_s: 1, output_tokens_per_s: (8 + 4 + 5) / 2, ended_after: 2, stretch: 3.5 / 2 });
  });

  it('gives no figure for a span under 1 s (everything sent at once)', () => {
    const burst = [rec({ sent_ms: 0, chunks: [5000] }), rec({ sent_ms: 999, chunks: [6000] })];
    expect(offeredWindow(burst, measuredWindow(burst))).toBeNull();
    expect(computeMetrics(burst).throughput.offered_window).toBeNull();
  });

  it('counts only a request’s last attempt and leaves cancelled ones out of the stragglers', () => {
    const records = [
      rec({ sent_ms: 0, chunks: [100] }),
      rec({ sent_ms: 500, end_ms: 600, status: 'error', error_class: 'http_5xx', retried: true }),
      rec({ sent_ms: 1000, chunks: [1000] }),
      rec({ sent_ms: 1000, end_ms: 9000, status: 'cancelled', error_class: 'cancelled' }),
    ];
    const o = offeredWindow(records, measuredWindow(records))!;
    expect(o.request_per_s).toBe(2);
    expect(o.ended_after).toBe(0);
  });
});
