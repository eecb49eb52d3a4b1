/**
 * Nelder–Mead simplex minimization (Lagarias et al. 1998 coefficients: reflect 1, expand 2,
 * contract ½, shrink ½). Derivative-free, which suits an objective computed by simulation:
 * piecewise smooth in the parameters (step boundaries move discretely).
 */
export interface NelderMeadOptions {
  /** Initial step per coordinate. */
  step: number[];
  maxEvaluations: number;
  /** Stop when the simplex's function values span less than this. */
  tolerance: number;
  onIteration?: (it: { iteration: number; evaluations: number; best: number }) => void;
}

export function nelderMead(f: (x: number[]) => number, x0: number[], o: NelderMeadOptions): { x: number[]; value: number; evaluations: number } {
  const n = x0.length;
  let evaluations = 0;
  const ev = (x: number[]): number => {
    evaluations++;
    const v = f(x);
    return Number.isFinite(v) ? v : Number.MAX_VALUE;
  };
  let simplex: { x: number[]; v: number }[] = [{ x: x0, v: ev(x0) }];
  for (let i = 0; i < n; i++) {
    const x = [...x0];
    x[i] = x[i]! + o.step[i]!;
    simplex.push({ x, v: ev(x) });
  }
  const combine = (a: number[], b: number[], t: number): number[] => a.map((ai, i) => ai + t * (b[i]! - ai));
  for (let iteration = 1; evaluations < o.maxEvaluations; iteration++) {
    simplex.sort((a, b) => a.v - b.v);
    o.onIteration?.({ iteration, evaluations, best: simplex[0]!.v });
    if (simplex[n]!.v - simplex[0]!.v < o.tolerance) break;
    const centroid = Array.from({ length: n }, (_, i) => simplex.slice(0, n).reduce((s, p) => s + p.x[i]!, 0) / n);
    const worst = simplex[n]!;
    const xr = combine(centroid, worst.x, -1);
    const vr = ev(xr);
    if (vr < simplex[0]!.v) {
      const xe = combine(centroid, worst.x, -2);
      const ve = ev(xe);
      simplex[n] = ve < vr ? { x: xe, v: ve } : { x: xr, v: vr };
    } else if (vr < simplex[n - 1]!.v) {
      simplex[n] = { x: xr, v: vr };
    } else {
      const outside = vr < worst.v;
      const xc = combine(centroid, outside ? xr : worst.x, 0.5);
      const vc = ev(xc);
      if (vc < (outside ? vr : worst.v)) simplex[n] = { x: xc, v: vc };
      else {
        const best = simplex[0]!;
        simplex = simplex.map((p, i) => (i === 0 ? p : { x: combine(best.x, p.x, 0.5), v: NaN }));
        for (const p of simplex.slice(1)) p.v = ev(p.x);
      }
    }
  }
  simplex.sort((a, b) => a.v - b.v);
  return { x: simplex[0]!.x, value: simplex[0]!.v, evaluations };
}
