/** Progress of several senders as one: counters add, elapsed is the furthest, the worst health speaks. */
import { describe, expect, it } from 'vitest';
import { mergeSnapshots, type ProgressSnapshot } from '../../src/runner/progress.js';

const snap = (o: Partial<ProgressSnapshot>): ProgressSnapshot => ({ elapsed_ms: 0, total: 10, duration_ms: null, sent: 0, done: 0, ok: 0, failed: 0, inflight: 0, queued: 0, output_tokens: 0, ...o });

describe('mergeSnapshots', () => {
  it('sums counters, takes the furthest elapsed and the worst lag and busy share', () => {
    const m = mergeSnapshots([
      snap({ elapsed_ms: 1000, sent: 5, done: 4, ok: 3, failed: 1, inflight: 1, queued: 2, output_tokens: 40, lag_max_ms: 0.5, busy: 0.2 }),
      snap({ elapsed_ms: 1200, sent: 6, done: 6, ok: 6, inflight: 0, output_tokens: 60, lag_max_ms: 3, busy: null }),
    ]);
    expect(m).toEqual({ elapsed_ms: 1200, total: 20, duration_ms: null, sent: 11, done: 10, ok: 9, failed: 1, inflight: 1, queued: 2, output_tokens: 100, lag_max_ms: 3, busy: 0.2 });
  });
  it('a run by time has no total; nothing reported yet is null', () => {
    expect(mergeSnapshots([snap({ total: null, duration_ms: 60_000 }), snap({ total: null, duration_ms: 60_000 })])).toMatchObject({ total: null, duration_ms: 60_000, lag_max_ms: null, busy: null });
    expect(mergeSnapshots([])).toBeNull();
  });
});
