import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DueHeap } from '../../src/sim/due-heap.js';
import { Deque } from '../../src/sim/engine/deque.js';

describe('DueHeap', () => {
  it('pops in due order under any interleaving of pushes and pops (sorted-array oracle)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.double({ min: 0, max: 1e6, noNaN: true }), fc.constant(-1)), { maxLength: 300 }), (ops) => {
        const h = new DueHeap<{ due: number }>();
        const oracle: number[] = [];
        for (const op of ops) {
          if (op >= 0) {
            h.push({ due: op });
            oracle.push(op);
            oracle.sort((a, b) => a - b);
          } else {
            expect(h.pop()?.due).toBe(oracle.shift());
          }
          expect(h.size).toBe(oracle.length);
          expect(h.peek()?.due).toBe(oracle[0]);
        }
      }),
    );
  });
});

describe('Deque', () => {
  it('behaves like an array used at both ends, across growth', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 400 }), (ops) => {
        const d = new Deque<number>();
        const a: number[] = [];
        ops.forEach((op, i) => {
          if (op === 0) {
            d.pushBack(i);
            a.push(i);
          } else if (op === 1) {
            d.pushFront(i);
            a.unshift(i);
          } else {
            expect(d.popFront()).toBe(a.shift());
          }
          expect(d.length).toBe(a.length);
          expect(d.peekFront()).toBe(a[0]);
        });
      }),
    );
  });
});
