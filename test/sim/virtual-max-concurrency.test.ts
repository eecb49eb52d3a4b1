/**
 * --max-concurrency in virtual time: the same open-loop gate as the HTTP runner. Checked against
 * an oracle of intervals: never more than N requests between their send and end; a request waits
 * only while N others are in flight, and then goes out the moment one of them ends.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../src/record/record.js';
import { runVirtual, type VirtualRequest } from '../../src/sim/virtual.js';

/** Requests in flight at time t: sent at or before t, not yet ended (an end frees its slot at once). */
const inFlightAt = (recs: RequestRecord[], t: number) => recs.filter((r) => r.sent_ms <= t && r.end_ms > t).length;

function requests(arrivals: number[], out: number[]): VirtualRequest[] {
  return arrivals.map((at, i) => ({ id: i, scheduled_ms: at, prompt_tokens: 64, max_tokens: out[i % out.length]! }));
}

describe('runVirtual with maxConcurrency', () => {
  it('holds the rest of a burst and sends each held request when a slot frees', () => {
    const { records } = runVirtual({ requests: requests([0, 0, 0, 0, 0, 0], [8, 16, 24]), maxConcurrency: 2 });
    expect(records).toHaveLength(6);
    const byId = [...records].sort((a, b) => a.id - b.id);
    expect(byId.slice(0, 2).every((r) => r.sent_ms === 0)).toBe(true);
    const ends = new Set(records.map((r) => r.end_ms));
    for (const r of byId.slice(2)) {
      expect(r.sent_ms).toBeGreaterThan(r.scheduled_ms); // held: late
      expect(ends.has(r.sent_ms)).toBe(true); // sent the moment another ended
    }
    for (const r of records) expect(inFlightAt(records, r.sent_ms)).toBeLessThanOrEqual(2);
  });

  it('changes nothing when the cap is never reached', () => {
    const reqs = requests([0, 5, 40, 41, 90], [10, 30]);
    const free = runVirtual({ requests: reqs }).records;
    const capped = runVirtual({ requests: reqs, maxConcurrency: 100 }).records;
    expect(capped).toEqual(free);
  });

  it('property: at most N in flight, FIFO sends, and no request waits while a slot is free', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 25 }),
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 4 }),
        (gaps, out, cap) => {
          let t = 0;
          const arrivals = gaps.map((g) => (t += g));
          const { records } = runVirtual({ requests: requests(arrivals, out), maxConcurrency: cap });
          const byId = [...records].sort((a, b) => a.id - b.id);
          expect(byId).toHaveLength(arrivals.length);
          for (const r of byId) {
            expect(r.status).toBe('ok');
            expect(r.sent_ms).toBeGreaterThanOrEqual(r.scheduled_ms);
            expect(inFlightAt(records, r.sent_ms)).toBeLessThanOrEqual(cap);
            // waited only while every slot was taken
            if (r.sent_ms > r.scheduled_ms) expect(inFlightAt(records, r.scheduled_ms)).toBe(cap);
          }
          for (let i = 1; i < byId.length; i++) expect(byId[i]!.sent_ms).toBeGreaterThanOrEqual(byId[i - 1]!.sent_ms);
        },
      ),
      { numRuns: 150 },
    );
  });
});
