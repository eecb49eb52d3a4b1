import { describe, expect, it } from 'vitest';
import { KvCache } from '../../src/sim/engine/kv-cache.js';

const owner = (): { blocks: number[]; hashed: number } => ({ blocks: [], hashed: 0 });

describe('KvCache', () => {
  it('allocates ⌈tokens / block size⌉ blocks and refuses when full, changing nothing', () => {
    const kv = new KvCache(4, 16, true);
    const a = owner();
    expect(kv.allocate(a, 33, [], 0)).toBe(true); // ⌈33/16⌉ = 3
    expect(a.blocks).toHaveLength(3);
    expect(kv.usage()).toBe(0.75);
    const b = owner();
    expect(kv.allocate(b, 17, [], 0)).toBe(false);
    expect(b.blocks).toHaveLength(0);
    expect(kv.numFree).toBe(1);
    kv.release(a);
    expect(kv.usage()).toBe(0);
  });

  it('reuses committed prefix blocks after release, until evicted LRU', () => {
    const kv = new KvCache(4, 16, true);
    const hashes = [11, 22];
    const a = owner();
    kv.allocate(a, 40, hashes, 0);
    kv.commit(a, 40, hashes); // 2 full blocks hashed
    kv.release(a);
    expect(kv.matchPrefix([11, 22, 33])).toBe(2);
    expect(kv.matchPrefix([99, 22])).toBe(0); // only a leading run of hashes matches
    const b = owner();
    expect(kv.allocate(b, 40, hashes, 2)).toBe(true);
    expect(kv.numFree).toBe(1);
    kv.release(b);
    // a request needing all 4 blocks evicts the cached ones
    const c = owner();
    expect(kv.allocate(c, 64, [], 0)).toBe(true);
    kv.release(c);
    expect(kv.matchPrefix(hashes)).toBe(0);
  });

  it('shares a cached block between two live owners (ref counts)', () => {
    const kv = new KvCache(3, 16, true);
    const a = owner();
    kv.allocate(a, 20, [5], 0);
    kv.commit(a, 20, [5]);
    const b = owner();
    expect(kv.allocate(b, 20, [5], 1)).toBe(true);
    expect(b.blocks[0]).toBe(a.blocks[0]);
    expect(kv.numFree).toBe(0); // 2 blocks of a + 1 new of b; the shared one counted once
    kv.release(a);
    expect(kv.numFree).toBe(1); // the shared block is still held by b
    kv.release(b);
    expect(kv.numFree).toBe(3);
  });
});

describe('KvCache corruption fails fast', () => {
  /** The private free count, to construct a corrupted state no caller can reach. */
  const freeCount = (kv: KvCache) => kv as unknown as { free: number };

  it('throws on a free count below the free queue, instead of refusing every allocation for ever', () => {
    const kv = new KvCache(4, 16, true);
    freeCount(kv).free = 2; // 4 blocks in the queue, none held
    // Before the check this returned false (2 < 3 needed), so the engine never admitted the request.
    expect(() => kv.allocate(owner(), 48, [], 0)).toThrow(/KvCache: free list corrupted — allocate: free 2 \+ held 0 ≠ 4 blocks/);
  });

  it('throws on a free count above the free queue, instead of handing out a sentinel', () => {
    const kv = new KvCache(2, 16, false);
    expect(kv.allocate(owner(), 32, [], 0)).toBe(true); // both blocks held
    freeCount(kv).free = 1;
    expect(() => kv.allocate(owner(), 16, [], 0)).toThrow(/allocate: the free queue is empty while the free count is 1/);
  });

  it('throws when a block is released twice', () => {
    const kv = new KvCache(4, 16, true);
    const a = owner();
    kv.allocate(a, 32, [], 0);
    const copy = { blocks: [...a.blocks], hashed: 0 };
    kv.release(a);
    expect(() => kv.release(copy)).toThrow(/release: block \d is already free \(released twice\)/);
  });
});
