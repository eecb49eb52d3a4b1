/**
 * The ascending order of many doubles in linear time: a stable LSD radix sort of their IEEE-754
 * bits, 16 bits per pass (a pass whose digit is the same for every value is skipped). A
 * comparator sort of an index array costs O(n log n) closure calls — most of `compare`'s time on
 * a long run's ITL gaps; this is a handful of sequential passes.
 */

/** Indices of `values` in ascending numeric order, equal values in index order (as a stable sort). -0 ranks as 0; no NaN. */
export function argsortFloat64(values: ArrayLike<number>): Int32Array {
  const idx = new Int32Array(values.length);
  for (let i = 0; i < idx.length; i++) idx[i] = i;
  sortWithOwners(Float64Array.from(values), idx);
  return idx;
}

/**
 * `values` sorted ascending with `owners` carried along (owners[j] stays with values[j]), both
 * rewritten in place, equal values in their given order. The same LSD radix passes as
 * argsortFloat64, moving the owner instead of an index: no gather through an index afterwards,
 * whose random reads of tens of millions of values were most of compare's sorting time.
 */
export function sortWithOwners(values: Float64Array, owners: Int32Array): void {
  const n = values.length;
  let lo = new Uint32Array(n);
  let hi = new Uint32Array(n);
  let own: Int32Array = owners;
  const f = new Float64Array(1);
  const u = new Uint32Array(f.buffer);
  const little = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  const [l, h] = little ? [0, 1] : [1, 0];
  for (let i = 0; i < n; i++) {
    f[0] = values[i]! === 0 ? 0 : values[i]!;
    if (u[h]! & 0x80000000) {
      hi[i] = ~u[h]! >>> 0;
      lo[i] = ~u[l]! >>> 0;
    } else {
      hi[i] = (u[h]! | 0x80000000) >>> 0;
      lo[i] = u[l]!;
    }
  }
  let lo2 = new Uint32Array(n);
  let hi2 = new Uint32Array(n);
  let own2: Int32Array = new Int32Array(n);
  const count = new Int32Array(65536);
  for (let pass = 0; pass < 4; pass++) {
    const word = pass < 2 ? lo : hi;
    const shift = (pass & 1) * 16;
    count.fill(0);
    for (let i = 0; i < n; i++) count[(word[i]! >>> shift) & 0xffff]!++;
    if (n === 0 || count[(word[0]! >>> shift) & 0xffff] === n) continue;
    let sum = 0;
    for (let d = 0; d < 65536; d++) {
      const c = count[d]!;
      count[d] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const at = count[(word[i]! >>> shift) & 0xffff]!++;
      lo2[at] = lo[i]!;
      hi2[at] = hi[i]!;
      own2[at] = own[i]!;
    }
    [lo, lo2] = [lo2, lo];
    [hi, hi2] = [hi2, hi];
    [own, own2] = [own2, own];
  }
  // The bits back to doubles, in order (the inverse of the map above; -0 came in as 0).
  for (let i = 0; i < n; i++) {
    if (hi[i]! & 0x80000000) {
      u[h] = (hi[i]! & 0x7fffffff) >>> 0;
      u[l] = lo[i]!;
    } else {
      u[h] = ~hi[i]! >>> 0;
      u[l] = ~lo[i]! >>> 0;
    }
    values[i] = f[0]!;
  }
  if (own !== owners) owners.set(own);
}
