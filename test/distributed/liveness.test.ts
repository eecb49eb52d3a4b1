/**
 * A worker's silence, not counting the coordinator's own stalls (hand-computed, on a fake clock):
 * checks on time accumulate silence; a check that comes late forgives the lateness, since the
 * coordinator could not read heartbeats while it was stalled.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Liveness } from '../../src/distributed/liveness.js';

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(1_000_000);
});
afterEach(() => vi.useRealTimers());

describe('Liveness', () => {
  it('checks on time: silence grows with the clock; a heartbeat resets it', () => {
    const l = new Liveness([0, 1]);
    for (let i = 0; i < 50; i++) {
      vi.setSystemTime(Date.now() + 100);
      l.tick(100);
    }
    expect(l.silentMs(0)).toBe(5000);
    l.heard(1);
    vi.setSystemTime(Date.now() + 100);
    l.tick(100);
    expect(l.silentMs(1)).toBe(100);
    expect(l.silentMs(0)).toBe(5100);
    expect(l.silentMs(7)).toBe(0);
  });

  it('a check 10 s late (the coordinator stalled) forgives the stall beyond the interval', () => {
    const l = new Liveness([0]);
    vi.setSystemTime(Date.now() + 10_000);
    l.tick(100);
    // 10,000 ms elapsed, 9,900 of them a stall: 100 ms of silence remain.
    expect(l.silentMs(0)).toBe(100);
    // Lateness within the slack (250 ms) is not a stall: it counts as silence.
    vi.setSystemTime(Date.now() + 300);
    l.tick(100);
    expect(l.silentMs(0)).toBe(400);
  });

  it('checks that restart after a pause do not count the pause as a stall', () => {
    const l = new Liveness([0]);
    vi.setSystemTime(Date.now() + 20_000);
    l.heard(0);
    vi.setSystemTime(Date.now() + 3_000);
    l.restart();
    vi.setSystemTime(Date.now() + 1_000);
    l.tick(1_000);
    expect(l.silentMs(0)).toBe(4_000);
  });
});
