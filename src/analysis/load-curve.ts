/**
 * Reading a load curve (one point per sweep stage, in ascending offered load): where the
 * service saturates, where its tail latency bends up (the knee), and where it degrades.
 * Pure functions; worked examples in docs/analysis.md.
 */

export interface CurvePoint {
  /** Offered load: req/s or concurrency; Infinity for an all-at-once (max-throughput) stage. */
  load: number;
  /** Output tokens/s achieved. */
  throughput: number | null;
  /** Median and p99 end-to-end latency (ms). */
  latency_p50: number | null;
  latency_p99: number | null;
  /** status 'error' / attempts. */
  error_rate: number | null;
  /** Every SLO of the stage held (null: no SLOs given). */
  slos_pass: boolean | null;
}

export interface CurveParams {
  /** Saturation: later stages' throughput within this share above the stage's (default 5 %). */
  throughputTolerance: number;
  /** Saturation: the next stage's median latency at least this share higher (default 5 %). */
  latencyRise: number;
  /** Knee: p99 must rise by at least this share over the sweep to have one (default 50 %). */
  kneeMinRise: number;
  /** Knee: the normalized difference curve must reach this (default 0.1). */
  kneeMinScore: number;
  /** Degradation: an error rate above this (default 1 %). */
  errorRateLimit: number;
}

export const CURVE_PARAMS: CurveParams = { throughputTolerance: 0.05, latencyRise: 0.05, kneeMinRise: 0.5, kneeMinScore: 0.1, errorRateLimit: 0.01 };

export interface CurveFinding {
  /** Index into the points given. */
  index: number;
  load: number;
  reason: string;
}

const pct = (v: number) => `${Number((v * 100).toFixed(1))}%`;

/**
 * Saturation point: the first stage s from which throughput stops rising — every later stage's
 * throughput is ≤ throughput[s] · (1 + tolerance) — while latency keeps rising: the next stage's
 * median latency is ≥ latency_p50[s] · (1 + latencyRise). null when throughput still rises at the
 * highest load (or latency does not grow past the plateau).
 */
export function findSaturation(points: readonly CurvePoint[], params: CurveParams = CURVE_PARAMS): CurveFinding | null {
  for (let s = 0; s + 1 < points.length; s++) {
    const t = points[s]!.throughput;
    const lat = points[s]!.latency_p50;
    if (t === null || lat === null || !(t > 0)) continue;
    const later = points.slice(s + 1);
    if (!later.every((p) => p.throughput !== null && p.throughput <= t * (1 + params.throughputTolerance))) continue;
    const nextLat = points[s + 1]!.latency_p50;
    if (nextLat === null || nextLat < lat * (1 + params.latencyRise)) continue;
    return {
      index: s,
      load: points[s]!.load,
      reason: `no higher load raised throughput more than ${pct(params.throughputTolerance)} above ${t.toFixed(1)} tok/s, while median E2EL rose ${pct(nextLat / lat - 1)} at the next stage`,
    };
  }
  return null;
}

/**
 * Knee of the p99-latency curve, Kneedle-style (Satopää et al., 2011) on the stages with a
 * finite load:
 * 1. x = offered load, on a log scale when the loads are geometric (every step ×1.5 or more,
 *    e.g. concurrencies 1, 4, 16, 64), else linear; y = p99 E2EL made non-decreasing (running
 *    maximum), so one noisy dip does not make a knee.
 * 2. Normalize both to [0, 1]; the difference curve d = x_n − y_n is largest where a convex,
 *    rising curve turns upward: the last stage before the steep climb.
 * 3. A knee needs p99 to rise by at least kneeMinRise over the sweep and max d ≥ kneeMinScore
 *    (a straight line has d ≈ 0 everywhere); at least 3 stages.
 */
export function findKnee(points: readonly CurvePoint[], params: CurveParams = CURVE_PARAMS): (CurveFinding & { score: number }) | null {
  const idx = points.map((p, i) => [p, i] as const).filter(([p]) => Number.isFinite(p.load) && p.load > 0 && p.latency_p99 !== null);
  if (idx.length < 3) return null;
  const loads = idx.map(([p]) => p.load);
  const geometric = loads.every((l, i) => i === 0 || l / loads[i - 1]! >= 1.5);
  const xs = loads.map((l) => (geometric ? Math.log(l) : l));
  const ys: number[] = [];
  for (const [p] of idx) ys.push(Math.max(p.latency_p99!, ys.length > 0 ? ys[ys.length - 1]! : -Infinity));
  const x0 = xs[0]!;
  const x1 = xs[xs.length - 1]!;
  const y0 = ys[0]!;
  const y1 = ys[ys.length - 1]!;
  if (!(x1 > x0) || !(y1 >= y0 * (1 + params.kneeMinRise)) || !(y1 > y0)) return null;
  let best = -Infinity;
  let at = -1;
  for (let i = 0; i < xs.length; i++) {
    const d = (xs[i]! - x0) / (x1 - x0) - (ys[i]! - y0) / (y1 - y0);
    if (d > best + 1e-12) {
      best = d;
      at = i;
    }
  }
  if (best < params.kneeMinScore) return null;
  const [p, index] = idx[at]!;
  const next = idx[at + 1]?.[0];
  return {
    index,
    load: p.load,
    score: best,
    reason: `p99 E2EL bends upward after this stage (Kneedle score ${best.toFixed(2)} on the ${geometric ? 'log-' : ''}normalized curve)${next ? `: ${p.latency_p99!.toFixed(0)} → ${next.latency_p99!.toFixed(0)} ms at the next stage` : ''}`,
  };
}

/** Degradation point: the first stage whose error rate exceeds errorRateLimit or whose SLOs fail. */
export function findDegradation(points: readonly CurvePoint[], params: CurveParams = CURVE_PARAMS): CurveFinding | null {
  for (let i = 0; i < points.length; i++) {
    const p = points[i]!;
    const errors = p.error_rate !== null && p.error_rate > params.errorRateLimit;
    if (errors || p.slos_pass === false) {
      const why = [errors ? `error rate ${pct(p.error_rate!)} > ${pct(params.errorRateLimit)}` : null, p.slos_pass === false ? 'an SLO failed' : null].filter((x) => x !== null).join(' and ');
      return { index: i, load: p.load, reason: why };
    }
  }
  return null;
}

/** One stage of a sweep as a single run's report reads it (history/sweep-match.ts finds the sweep). */
export interface SweepStagePoint {
  stage: number;
  kind: 'rate' | 'concurrency';
  load: number;
  ttft_p99_ms: number | null;
  e2el_p99_ms: number | null;
}

/** The sweep a single run sits on: same target and workload, the load varied. */
export interface SweepContext {
  /** The sweep's directory, id (or name) and start. */
  dir: string;
  sweep: string;
  started_at: string;
  /** Stages with a finite load, in stage order. */
  stages: SweepStagePoint[];
  /** The loads of the sweep analysis's knee and saturation point, when it found them. */
  knee: number | null;
  saturation: number | null;
}

/** A curve's x axis is one kind of load: the kind most stages have (an auto sweep's baseline and probe are of the other). */
export function curveKind(kinds: ReadonlyArray<'rate' | 'concurrency'>): 'rate' | 'concurrency' {
  const rates = kinds.filter((k) => k === 'rate').length;
  return rates >= kinds.length - rates ? 'rate' : 'concurrency';
}
