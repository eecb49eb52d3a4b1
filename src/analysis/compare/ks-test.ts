/**
 * Two-sample Kolmogorov–Smirnov test: do two samples come from the same distribution?
 *
 *   D = sup_x |F_a(x) − F_b(x)|       (empirical CDFs; ties handled by stepping past equal values)
 *   n_e = n·m / (n + m)
 *   p ≈ Q_KS((√n_e + 0.12 + 0.11/√n_e) · D),   Q_KS(λ) = 2 Σ_{j≥1} (−1)^{j−1} e^{−2 j² λ²}
 *
 * The asymptotic distribution with Stephens' small-sample correction (Numerical Recipes §14.3).
 * Token lengths are discrete, for which the test is conservative (p-values too large), so a small
 * p-value is still evidence of a difference.
 */

export interface KsResult {
  /** Largest distance between the two empirical CDFs, in [0, 1]. */
  d: number;
  /** Probability of a distance ≥ d if both samples came from one distribution. */
  p_value: number;
  n_a: number;
  n_b: number;
}

/** Q_KS(λ): the Kolmogorov distribution's survival function. */
export function kolmogorovQ(lambda: number): number {
  if (lambda < 1e-3) return 1;
  let sum = 0;
  let sign = 1;
  for (let j = 1; j <= 100; j++) {
    const term = sign * Math.exp(-2 * j * j * lambda * lambda);
    sum += term;
    if (Math.abs(term) < 1e-12 * Math.abs(sum)) break;
    sign = -sign;
  }
  return Math.min(1, Math.max(0, 2 * sum));
}

/** Null when either sample is empty. */
export function ksTwoSample(a: ArrayLike<number>, b: ArrayLike<number>): KsResult | null {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0) return null;
  const xs = Float64Array.from(a).sort();
  const ys = Float64Array.from(b).sort();
  let i = 0;
  let j = 0;
  let d = 0;
  while (i < n && j < m) {
    const x = Math.min(xs[i]!, ys[j]!);
    while (i < n && xs[i] === x) i++;
    while (j < m && ys[j] === x) j++;
    d = Math.max(d, Math.abs(i / n - j / m));
  }
  const ne = (n * m) / (n + m);
  const sq = Math.sqrt(ne);
  return { d, p_value: kolmogorovQ((sq + 0.12 + 0.11 / sq) * d), n_a: n, n_b: m };
}
