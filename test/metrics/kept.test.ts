/**
 * kept() (metrics/compute.ts): the records a predicate keeps, in order, against Array.filter as
 * the oracle; the input array itself when every record is kept (no copy of a long run's records).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kept, measureRecords } from '../../src/metrics/compute.js';
import type { RequestRecord } from '../../src/record/record.js';
import { rec } from './make-record.js';

const PHASES = ['warmup', 'measure', 'cooldown'] as const;

describe('kept', () => {
  it('keeps what Array.filter keeps, in order', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PHASES), { maxLength: 40 }), (phases) => {
        const records = phases.map((phase) => rec({ phase }));
        const out = kept(records, (r) => r.phase === 'measure');
        expect([...out]).toEqual(records.filter((r) => r.phase === 'measure'));
        out.forEach((r, i) => expect(r).toBe(records.filter((x) => x.phase === 'measure')[i]));
      }),
    );
  });

  it('gives the input array itself when every record is kept, a new one otherwise', () => {
    const all = [rec({}), rec({}), rec({})];
    expect(kept(all, () => true)).toBe(all);
    expect(measureRecords(all)).toBe(all);
    const mixed: RequestRecord[] = [rec({ phase: 'warmup' }), ...all];
    const m = measureRecords(mixed);
    expect(m).not.toBe(mixed);
    expect(m).toEqual(all);
    expect(m.length).toBe(3);
    expect(kept([], () => false)).toEqual([]);
  });
});
