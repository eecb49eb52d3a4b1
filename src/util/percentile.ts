/**
 * numpy's linear percentile, the one interpolation every figure uses: the metrics (metrics/stats.ts
 * re-exports it) and the simulator's calibration check (sim/calibrate/validate.ts), which may not
 * import metrics/.
 */

/**
 * Percentile of ascending-sorted values by linear interpolation between closest ranks
 * (numpy's default `method='linear'`):
 *
 *   h = (n − 1) · p/100,  x[⌊h⌋] + (h − ⌊h⌋) · (x[⌊h⌋+1] − x[⌊h⌋])
 *
 * The float operations follow numpy's `_lerp` (for t ≥ 0.5 it interpolates down from the
 * upper neighbour), so results match `np.percentile` bit for bit on the same input.
 * Example: [1, 2, 3, 4], p = 90 → h = 2.7 → 3 + 0.7 · (4 − 3) = 3.7.
 *
 * @param sorted ascending, non-empty, no NaN
 * @param p percentile in [0, 100]
 * @throws RangeError on an empty array or p outside [0, 100]
 */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) throw new RangeError('percentile of an empty array');
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile p must be in [0, 100], got ${p}`);
  const h = (n - 1) * (p / 100);
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  return interpolate(sorted[lo]!, sorted[hi]!, h - lo);
}

/** The value at fraction `t` of the way from `a` to `b`, as numpy's linear interpolation computes it. */
export function interpolate(a: number, b: number, t: number): number {
  const diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}
