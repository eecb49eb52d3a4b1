/**
 * Model-based property test of the paged KV cache: random sequences of allocate / commit /
 * release / prefix lookups run against KvCache and against a plain-array oracle of vLLM's block
 * pool (ref counts, an LRU free list as an array, a hash → block map). After every operation
 * both agree on the result, the blocks handed out and the free count, and the invariants hold:
 * free + held = total, and every cached hash maps to a block that holds it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KvCache, type BlockOwner } from '../../src/sim/engine/kv-cache.js';

/** The oracle: the same rules, written the slow, obvious way. */
class OracleKv {
  ref: number[];
  hash: (number | null)[];
  /** Free blocks, least recently freed first (index 0 is taken first). */
  free: number[];
  byHash = new Map<number, number>();

  constructor(
    readonly n: number,
    readonly bs: number,
    readonly caching: boolean,
  ) {
    this.ref = Array<number>(n).fill(0);
    this.hash = Array<number | null>(n).fill(null);
    this.free = Array.from({ length: n }, (_, b) => b);
  }

  match(hashes: readonly number[]): number {
    if (!this.caching) return 0;
    let k = 0;
    while (k < hashes.length && this.byHash.has(hashes[k]!)) k++;
    return k;
  }

  allocate(o: BlockOwner, tokens: number, hashes: readonly number[], cached: number): boolean {
    const useCached = o.blocks.length === 0 ? cached : 0;
    const cachedBlocks = hashes.slice(0, useCached).map((h) => this.byHash.get(h)!);
    const need = Math.ceil(tokens / this.bs) - o.blocks.length - useCached;
    if (need + cachedBlocks.filter((b) => this.ref[b] === 0).length > this.free.length) return false;
    for (const b of cachedBlocks) {
      if (this.ref[b] === 0) this.free.splice(this.free.indexOf(b), 1);
      this.ref[b]!++;
      o.blocks.push(b);
    }
    if (useCached > 0) o.hashed = useCached;
    for (let i = 0; i < need; i++) {
      const b = this.free.shift()!;
      const h = this.hash[b];
      if (h !== null && h !== undefined) {
        if (this.byHash.get(h) === b) this.byHash.delete(h);
        this.hash[b] = null;
      }
      this.ref[b] = 1;
      o.blocks.push(b);
    }
    return true;
  }

  commit(o: BlockOwner, computed: number, hashes: readonly number[]): void {
    if (!this.caching) return;
    const full = Math.min(Math.floor(computed / this.bs), hashes.length, o.blocks.length);
    for (let i = o.hashed; i < full; i++) {
      if (!this.byHash.has(hashes[i]!)) {
        this.byHash.set(hashes[i]!, o.blocks[i]!);
        this.hash[o.blocks[i]!] = hashes[i]!;
      }
    }
    o.hashed = Math.max(o.hashed, full);
  }

  release(o: BlockOwner): void {
    for (const b of [...o.blocks].reverse()) {
      this.ref[b]!--;
      if (this.ref[b] === 0) {
        // Unhashed blocks are reused first; hashed ones wait at the back, keeping their hash.
        if (this.hash[b] === null || !this.caching) this.free.unshift(b);
        else this.free.push(b);
      }
    }
    o.blocks = [];
    o.hashed = 0;
  }
}

const BS = 4;
const OWNERS = 4;
/** Prompt hash chains: documents sharing their first block, so prefixes overlap partly. */
const chain = (doc: number, len: number): number[] => Array.from({ length: len }, (_, i) => (i === 0 ? 1 : doc * 100 + i));

type Op =
  | { kind: 'alloc'; owner: number; doc: number; tokens: number; takeCached: number }
  | { kind: 'grow'; owner: number; extra: number }
  | { kind: 'commit'; owner: number; share: number }
  | { kind: 'release'; owner: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('alloc' as const), owner: fc.nat(OWNERS - 1), doc: fc.nat(3), tokens: fc.integer({ min: 1, max: 40 }), takeCached: fc.nat(12) }),
  fc.record({ kind: fc.constant('grow' as const), owner: fc.nat(OWNERS - 1), extra: fc.integer({ min: 1, max: 9 }) }),
  fc.record({ kind: fc.constant('commit' as const), owner: fc.nat(OWNERS - 1), share: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ kind: fc.constant('release' as const), owner: fc.nat(OWNERS - 1) }),
);

interface Slot {
  real: BlockOwner;
  model: BlockOwner;
  hashes: number[];
  tokens: number;
}

/** The cache's private tables, read for the invariant checks only. */
interface KvInternals {
  byHash: Map<number, number>;
  hash: Float64Array;
  ref: Int32Array;
}

function checkInvariants(kv: KvCache, slots: Slot[], n: number): void {
  const held = new Set(slots.flatMap((s) => s.real.blocks));
  expect(kv.numFree + held.size).toBe(n);
  const inner = kv as unknown as KvInternals;
  for (const [h, b] of inner.byHash) expect(inner.hash[b]).toBe(h);
  for (let b = 0; b < n; b++) expect(inner.ref[b]).toBe(slots.reduce((k, s) => k + s.real.blocks.filter((x) => x === b).length, 0));
}

describe('KvCache against a simple oracle (fast-check)', () => {
  for (const caching of [true, false]) {
    it(`agrees after any sequence of operations; free + held = total; cached hashes map to their blocks (prefix caching ${caching ? 'on' : 'off'})`, () => {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 12 }), fc.array(opArb, { maxLength: 60 }), (n, ops) => {
          const kv = new KvCache(n, BS, caching);
          const oracle = new OracleKv(n, BS, caching);
          const slots: Slot[] = Array.from({ length: OWNERS }, () => ({ real: { blocks: [], hashed: 0 }, model: { blocks: [], hashed: 0 }, hashes: [], tokens: 0 }));
          for (const op of ops) {
            const s = slots[op.owner]!;
            if (op.kind === 'alloc' && s.real.blocks.length === 0) {
              const hashes = chain(op.doc, Math.floor(op.tokens / BS));
              const hit = kv.matchPrefix(hashes);
              expect(hit).toBe(oracle.match(hashes));
              const cached = Math.min(hit, op.takeCached);
              const ok = kv.allocate(s.real, op.tokens, hashes, cached);
              expect(ok).toBe(oracle.allocate(s.model, op.tokens, hashes, cached));
              if (ok) {
                s.hashes = hashes;
                s.tokens = op.tokens;
              }
            } else if (op.kind === 'grow' && s.real.blocks.length > 0) {
              const ok = kv.allocate(s.real, s.tokens + op.extra, s.hashes, 0);
              expect(ok).toBe(oracle.allocate(s.model, s.tokens + op.extra, s.hashes, 0));
              if (ok) s.tokens += op.extra;
            } else if (op.kind === 'commit' && s.real.blocks.length > 0) {
              const computed = Math.floor(s.tokens * op.share);
              kv.commit(s.real, computed, s.hashes);
              oracle.commit(s.model, computed, s.hashes);
            } else if (op.kind === 'release') {
              kv.release(s.real);
              oracle.release(s.model);
              s.tokens = 0;
            }
            expect(s.real).toEqual(s.model);
            expect(kv.numFree).toBe(oracle.free.length);
            checkInvariants(kv, slots, n);
          }
          for (let d = 0; d < 4; d++) expect(kv.matchPrefix(chain(d, 10))).toBe(oracle.match(chain(d, 10)));
        }),
        { numRuns: 300, seed: 20261130 },
      );
    });
  }
});
