/**
 * The rolling window of `watch`: the windows that end within the last windowMs, opened by the
 * newest snapshot at or before the window's start — a snapshot exactly at the boundary opens it,
 * and everything older is dropped, so memory stays bounded however long a service is watched.
 */
import { describe, expect, it } from 'vitest';
import { RollingSeries } from '../../src/observe/rolling.js';
import type { Snapshot } from '../../src/observe/snapshot.js';

const snap = (t_ms: number, running: number, source = 0): Snapshot => ({ t_ms, source, engines: ['vllm'], values: { running: { kind: 'gauge', value: running } } });

/** The snapshots a RollingSeries holds (private: the memory bound is what is under test). */
const held = (r: RollingSeries): Snapshot[] => (r as unknown as { snaps: Snapshot[] }).snaps;

describe('RollingSeries', () => {
  it('a snapshot exactly at the window start opens the window; older ones are dropped', () => {
    const r = new RollingSeries(10_000);
    r.add([0, 5_000, 10_000, 15_000, 20_000].map((t, i) => snap(t, i)));
    const w = r.windows(20_000);
    expect(w.map((x) => [x.start_ms, x.end_ms])).toEqual([
      [10_000, 15_000],
      [15_000, 20_000],
    ]);
    expect(held(r).map((s) => s.t_ms)).toEqual([10_000, 15_000, 20_000]);
  });

  it('without a snapshot at the boundary, the one before it opens a window that straddles it', () => {
    const r = new RollingSeries(10_000);
    r.add([0, 4_000, 8_000, 12_000, 16_000, 20_000].map((t, i) => snap(t, i)));
    expect(r.windows(20_000).map((x) => [x.start_ms, x.end_ms])).toEqual([
      [8_000, 12_000],
      [12_000, 16_000],
      [16_000, 20_000],
    ]);
    expect(held(r)).toHaveLength(4);
  });

  it('keeps each source on its own clock', () => {
    const r = new RollingSeries(5_000);
    r.add([snap(0, 1, 0), snap(6_000, 2, 0), snap(9_000, 3, 0), snap(1_000, 1, 1), snap(5_000, 2, 1), snap(10_000, 3, 1)]);
    const w = r.windows(10_000);
    expect(w.map((x) => [x.source, x.start_ms, x.end_ms])).toEqual([
      [0, 0, 6_000],
      [0, 6_000, 9_000],
      [1, 5_000, 10_000],
    ]);
  });
});
