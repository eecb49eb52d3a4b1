/**
 * The ascending order of many doubles in linear time: a stable LSD radix sort of their IEEE-754
 * bits, 16 bits per pass (a pass whose digit is the same for every value is skipped). A
 * comparator sort of an index array costs O(n log n) closure calls — most of `compare`'s time on
 * a long run's ITL gaps; this is a handful of sequential passes.
 */

/** Indices of `values` in ascending numeric order, equal values in index order (as a stable sort). -0 ranks as 0; no NaN. */
export function argsortFloat64(values: ArrayLike<number>): Int32Array {
  const n = values.length;
  let lo = new Uint32Array(n);
  let hi = new Uint32Array(n);
  let idx = new Int32Array(n);
  const f = new Float64Array(1);
  const u = new Uint32Array(f.buffer);
  const little = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  const [l, h] = little ? [0, 1] : [1, 0];
  for (let i = 0; i < n; i++) {
    f[0] = values[i]! === 0 ? 0 : values[i]!;
    // Order-preserving map of the bits to unsigned integers: negatives flipped, positives above them.
    if (u[h]! & 0x80000000) {
      hi[i] = ~u[h]! >>> 0;
      lo[i] = ~u[l]! >>> 0;
    } else {
      hi[i] = (u[h]! | 0x80000000) >>> 0;
      lo[i] = u[l]!;
    }
    idx[i] = i;
  }
  let lo2 = new Uint32Array(n);
  let hi2 = new Uint32Array(n);
  let idx2 = new Int32Array(n);
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
      idx2[at] = idx[i]!;
    }
    [lo, lo2] = [lo2, lo];
    [hi, hi2] = [hi2, hi];
    [idx, idx2] = [idx2, idx];
  }
  return idx;
}
