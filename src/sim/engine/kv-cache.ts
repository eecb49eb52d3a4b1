/**
 * Paged KV cache with prefix caching, after vLLM's block pool:
 *
 *   blocks 0..N−1, each with a ref count and (once full and hashed) a prefix hash.
 *   free queue (doubly linked, LRU order):  HEAD ⇄ b7 ⇄ b2 ⇄ … ⇄ b9 ⇄ TAIL
 *     - a block whose ref count drops to 0 is appended at the tail, keeping its hash, so a later
 *       request with the same prefix can take it back ("cached free block");
 *     - new blocks are taken from the head (least recently freed); taking one evicts its hash.
 *   usage = 1 − free / N (cached free blocks count as free, as in vLLM).
 *
 * A request's blocks are freed in reverse order, so its last blocks (least likely shared) are
 * evicted first.
 *
 * Invariant, checked after every allocate and release: free + held = N, where held counts the
 * blocks with ref > 0. A corrupted free list (a count off by one, a block freed twice) would
 * otherwise show as an engine that never admits a request again — a virtual run that never
 * ends — so it throws at once instead. prev[b] = −1 marks a block outside the free queue.
 */
export interface BlockOwner {
  /** Block ids in order; block i holds tokens [i·B, (i+1)·B). */
  blocks: number[];
  /** Leading blocks already registered in the prefix cache. */
  hashed: number;
}

export class KvCache {
  private readonly ref: Int32Array;
  private readonly hash: Float64Array;
  private readonly prev: Int32Array;
  private readonly next: Int32Array;
  private readonly byHash = new Map<number, number>();
  private readonly head: number;
  private readonly tail: number;
  private free = 0;
  /** Blocks with ref > 0. */
  private held = 0;

  constructor(
    readonly numBlocks: number,
    readonly blockSize: number,
    readonly prefixCaching: boolean,
  ) {
    this.ref = new Int32Array(numBlocks);
    this.hash = new Float64Array(numBlocks).fill(-1);
    this.prev = new Int32Array(numBlocks + 2).fill(-1);
    this.next = new Int32Array(numBlocks + 2);
    this.head = numBlocks;
    this.tail = numBlocks + 1;
    this.next[this.head] = this.tail;
    this.prev[this.tail] = this.head;
    for (let b = 0; b < numBlocks; b++) this.pushTail(b);
  }

  get numFree(): number {
    return this.free;
  }

  usage(): number {
    return this.numBlocks === 0 ? 0 : 1 - this.free / this.numBlocks;
  }

  blocksFor(tokens: number): number {
    return Math.ceil(tokens / this.blockSize);
  }

  /** Number of leading hashes whose blocks are in the cache (in use or cached free). */
  matchPrefix(hashes: readonly number[]): number {
    if (!this.prefixCaching) return 0;
    let n = 0;
    while (n < hashes.length && this.byHash.has(hashes[n] as number)) n++;
    return n;
  }

  /**
   * Grows `owner` to hold `tokens` tokens. When it has no blocks yet, its first `cached` blocks
   * are taken from the prefix cache (hashes[0..cached)). Returns false, changing nothing, if the
   * free blocks do not suffice.
   */
  allocate(owner: BlockOwner, tokens: number, hashes: readonly number[], cached: number): boolean {
    const have = owner.blocks.length;
    const useCached = have === 0 ? cached : 0;
    const need = this.blocksFor(tokens) - have - useCached;
    let cachedFromFree = 0;
    for (let i = 0; i < useCached; i++) {
      const b = this.byHash.get(hashes[i] as number) as number;
      if (this.ref[b] === 0) cachedFromFree++;
    }
    if (need + cachedFromFree > this.free) {
      this.checkCounts('allocate');
      return false;
    }
    for (let i = 0; i < useCached; i++) {
      const b = this.byHash.get(hashes[i] as number) as number;
      if (this.ref[b] === 0) {
        this.unlink(b);
        this.held++;
      }
      this.ref[b] = (this.ref[b] as number) + 1;
      owner.blocks.push(b);
    }
    if (useCached > 0) owner.hashed = useCached;
    for (let i = 0; i < need; i++) {
      const b = this.next[this.head] as number;
      if (b === this.tail) this.corrupt(`allocate: the free queue is empty while the free count is ${this.free}`);
      this.unlink(b);
      this.held++;
      const h = this.hash[b] as number;
      if (h >= 0) {
        if (this.byHash.get(h) === b) this.byHash.delete(h);
        this.hash[b] = -1;
      }
      this.ref[b] = 1;
      owner.blocks.push(b);
    }
    this.checkCounts('allocate');
    return true;
  }

  /** Registers owner's full blocks covered by `computed` tokens under their prefix hashes. */
  commit(owner: BlockOwner, computed: number, hashes: readonly number[]): void {
    if (!this.prefixCaching) return;
    const full = Math.min(Math.floor(computed / this.blockSize), hashes.length, owner.blocks.length);
    for (let i = owner.hashed; i < full; i++) {
      const h = hashes[i] as number;
      const b = owner.blocks[i] as number;
      if (!this.byHash.has(h)) {
        this.byHash.set(h, b);
        this.hash[b] = h;
      }
    }
    if (full > owner.hashed) owner.hashed = full;
  }

  /** Releases all of owner's blocks (last block first into the free queue). */
  release(owner: BlockOwner): void {
    const bl = owner.blocks;
    for (let i = bl.length - 1; i >= 0; i--) {
      const b = bl[i] as number;
      const r = (this.ref[b] as number) - 1;
      if (r < 0) this.corrupt(`release: block ${b} is already free (released twice)`);
      this.ref[b] = r;
      if (r === 0) {
        this.held--;
        if (this.hash[b] === -1 || !this.prefixCaching) this.pushHead(b);
        else this.pushTail(b);
      }
    }
    bl.length = 0;
    owner.hashed = 0;
    this.checkCounts('release');
  }

  private checkCounts(where: string): void {
    if (this.free + this.held !== this.numBlocks) this.corrupt(`${where}: free ${this.free} + held ${this.held} ≠ ${this.numBlocks} blocks`);
  }

  private corrupt(what: string): never {
    throw new Error(`KvCache: free list corrupted — ${what}`);
  }

  private pushTail(b: number): void {
    if (this.prev[b] !== -1) this.corrupt(`block ${b} is already in the free queue`);
    const t = this.prev[this.tail] as number;
    this.next[t] = b;
    this.prev[b] = t;
    this.next[b] = this.tail;
    this.prev[this.tail] = b;
    this.free++;
  }

  /** Blocks without a hash have nothing worth keeping: reuse them first. */
  private pushHead(b: number): void {
    if (this.prev[b] !== -1) this.corrupt(`block ${b} is already in the free queue`);
    const n = this.next[this.head] as number;
    this.next[this.head] = b;
    this.prev[b] = this.head;
    this.next[b] = n;
    this.prev[n] = b;
    this.free++;
  }

  private unlink(b: number): void {
    const p = this.prev[b] as number;
    const n = this.next[b] as number;
    this.next[p] = n;
    this.prev[n] = p;
    this.prev[b] = -1;
    this.free--;
  }
}
