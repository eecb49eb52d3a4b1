/** rng.tally: many int draws counted without a call each — the same stream as the calls. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/util/rng.js';

describe('rng.tally', () => {
  it('is the same draws as int(0, length − 1) calls, and leaves the stream where they would (property)', () => {
    fc.assert(
      fc.property(fc.nat(), fc.integer({ min: 1, max: 50 }), fc.integer({ min: 0, max: 300 }), (seed, size, draws) => {
        const a = createRng(seed);
        const b = createRng(seed);
        const out = new Int32Array(size);
        a.tally(draws, out);
        const want = new Int32Array(size);
        for (let i = 0; i < draws; i++) want[b.int(0, size - 1)]! += 1;
        expect(Array.from(out)).toEqual(Array.from(want));
        expect(a.next()).toBe(b.next());
      }),
    );
  });
});
