import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { argsortFloat64, sortWithOwners } from '../../src/util/argsort.js';

/** The oracle: a stable comparator sort of the indices. */
const oracle = (xs: number[]) => xs.map((_, i) => i).sort((a, b) => xs[a]! - xs[b]!);

describe('argsortFloat64 (radix)', () => {
  it('equals a stable comparator sort of the indices: any doubles, negatives, ±0, infinities, many ties (property)', () => {
    const value = fc.oneof(fc.double({ noNaN: true }), fc.constantFrom(0, -0, 1, -1, 12.345, Infinity, -Infinity, Number.MIN_VALUE, -Number.MAX_VALUE), fc.integer({ min: -3, max: 3 }));
    fc.assert(
      fc.property(fc.array(value, { maxLength: 300 }), (xs) => {
        expect(Array.from(argsortFloat64(xs))).toEqual(oracle(xs));
      }),
      { numRuns: 500 },
    );
  });

  it('by hand: values differing only in their low bits, and only in their high bits', () => {
    expect(Array.from(argsortFloat64([1 + 2 ** -52, 1, 1 + 2 ** -51, 1]))).toEqual([1, 3, 0, 2]);
    expect(Array.from(argsortFloat64([2 ** 40, -(2 ** 40), 2 ** -40, 0]))).toEqual([1, 3, 2, 0]);
    expect(Array.from(argsortFloat64([]))).toEqual([]);
  });
});

describe('sortWithOwners (radix, owners carried)', () => {
  it('sorts the values and moves each owner with its value, ties in their given order (property)', () => {
    const value = fc.oneof(fc.double({ noNaN: true }), fc.constantFrom(0, 1, -1, 12.345, Infinity, -Infinity, Number.MIN_VALUE, -Number.MAX_VALUE), fc.integer({ min: -3, max: 3 }));
    fc.assert(
      fc.property(fc.array(value, { maxLength: 300 }), (xs) => {
        const order = oracle(xs);
        const values = Float64Array.from(xs);
        const owners = Int32Array.from(xs, (_, i) => i * 7);
        sortWithOwners(values, owners);
        // −0 sorts as 0 and comes back as +0 (sortWithOwners maps it so before taking the bits)
        expect(Array.from(values)).toEqual(order.map((i) => (xs[i] === 0 ? 0 : xs[i]!)));
        expect(Array.from(owners)).toEqual(order.map((i) => i * 7));
      }),
      { numRuns: 500 },
    );
  });
});
