/**
 * Grouped compare: repeated runs of A against repeated runs of B, each figure judged against
 * the run-to-run noise (docs/compare.md §Repeated runs).
 *
 * Unit: the run. Each run gives one value per figure, y_i — ln(figure) for relative figures (so a
 * change is a ratio, and A's and B's noise are on one scale), the value itself for the error rate.
 * Per group, the variance of the mean ȳ is the larger of
 *   between = s² / n         (s²: the sample variance of the runs' y_i, n − 1 degrees of freedom)
 *   within  = mean(v_i) / n  (v_i: the run's own bootstrap variance of y_i, bootstrap.ts; ∞ df)
 * — the runs' spread measures everything that differs between runs (the server's state, the
 * draws), but with 3 runs it is itself uncertain, and runs cannot vary less than their own
 * requests let them: the within-run term is the floor. The difference d = ȳ_B − ȳ_A has
 * se² = var_A + var_B and Welch–Satterthwaite degrees of freedom
 *   ν = se⁴ / Σ (var_g² / df_g)   (a within-run term has df = ∞ and adds nothing)
 * and its interval is d ± t(1 − (1 − level)/2, ν)·se, at the per-figure level of the family
 * (compare.ts familyLevels). Reported: relative figures as e^d − 1 (the ratio of the groups'
 * geometric means, minus one), the error rate as d (percentage points).
 */
import { compareEnvironments } from '../environment-diff.js';
import { createRng } from '../../util/rng.js';
import { tQuantile } from '../student-t.js';
import { resampleFigures, scratchFor, type RunSample } from './bootstrap.js';
import { familyLevels, isWorse, regressionBeyond, type CompareOptions, type CompareSide, type FigureComparison, type PairComparison, type Verdict } from './compare.js';
import { KEY_FIGURES, type FigureId, type FigureValues, type KeyFigure } from './key-figures.js';
import { compareShapes, shapesDiffer, type ShapeSource } from './load-shape.js';
import { buildHeadline, loadRegime } from './headline.js';

/** One group's runs on the judging scale for one figure: values y_i and within-run variances v_i (null: not estimated). */
export interface RunValues {
  y: readonly number[];
  v: ReadonlyArray<number | null>;
}

/** How one group's mean got its variance. */
export interface GroupSpread {
  n: number;
  mean: number;
  /** s², null with a single run. */
  between: number | null;
  /** mean(v_i), null when no run has one. */
  within: number | null;
  /** Which of the two the mean's variance rests on. */
  basis: 'between' | 'within';
  /** Variance of the mean, and its degrees of freedom (∞ for the within-run term). */
  var_mean: number;
  df: number;
}

export function groupSpread(g: RunValues): GroupSpread {
  const n = g.y.length;
  const mean = g.y.reduce((s, x) => s + x, 0) / n;
  const between = n > 1 ? g.y.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1) : null;
  const vs = g.v.filter((x): x is number => x !== null);
  const within = vs.length > 0 ? vs.reduce((s, x) => s + x, 0) / vs.length : null;
  const useWithin = within !== null && (between === null || within > between);
  return useWithin ? { n, mean, between, within, basis: 'within', var_mean: within! / n, df: Infinity } : { n, mean, between, within, basis: 'between', var_mean: (between ?? 0) / n, df: n - 1 };
}

/** d = ȳ_B − ȳ_A with its interval at `level` (two-sided), on the judging scale. */
export function differenceOverRuns(a: GroupSpread, b: GroupSpread, level: number): { d: number; se: number; df: number; ci: [number, number] } {
  const d = b.mean - a.mean;
  const se2 = a.var_mean + b.var_mean;
  const se = Math.sqrt(se2);
  const denominator = [a, b].reduce((s, g) => s + (Number.isFinite(g.df) && g.df > 0 ? g.var_mean ** 2 / g.df : 0), 0);
  const df = denominator > 0 ? se2 ** 2 / denominator : Infinity;
  const half = se > 0 ? tQuantile(1 - (1 - level) / 2, df) * se : 0;
  return { d, se, df, ci: [d - half, d + half] };
}

/** The judging scale: ln for relative figures (only positive values), the value for absolute ones. */
function scaled(f: KeyFigure, x: number | null | undefined): number | null {
  if (x === null || x === undefined || !Number.isFinite(x)) return null;
  if (f.delta === 'absolute') return x;
  return x > 0 ? Math.log(x) : null;
}

/**
 * Each run's bootstrap variance of every figure on the judging scale (`resamples` resamples,
 * the pair compare's resampling): the within-run term's v_i.
 */
export function withinVariances(sample: RunSample, hasGoodput: boolean, resamples: number, seed: number): FigureValues {
  const rng = createRng(seed);
  const scratch = scratchFor(sample);
  const sums = new Map<FigureId, { n: number; s: number; s2: number }>();
  for (let r = 0; r < resamples; r++) {
    const fig = resampleFigures(sample, rng, scratch, hasGoodput);
    for (const f of KEY_FIGURES) {
      const y = scaled(f, fig[f.id]);
      if (y === null) continue;
      const acc = sums.get(f.id) ?? { n: 0, s: 0, s2: 0 };
      acc.n++;
      acc.s += y;
      acc.s2 += y * y;
      sums.set(f.id, acc);
    }
  }
  const out: FigureValues = {};
  for (const [id, { n, s, s2 }] of sums) if (n > 1) out[id] = Math.max(0, (s2 - (s * s) / n) / (n - 1));
  return out;
}

export interface GroupSide {
  /** How the user named the group (a repeat directory, or the runs' paths joined). */
  label: string;
  runs: readonly CompareSide[];
}

/** Per figure, what the two groups' spreads were: said beside the verdict. */
export interface GroupFigureDetail {
  id: FigureId;
  a: GroupSpread | null;
  b: GroupSpread | null;
  df: number | null;
}

/** The groups' load shape: the first runs' settings, every run's lengths, the runs' total requests. */
function groupShape(g: GroupSide): ShapeSource {
  const first = g.runs[0]!.shape;
  const pool = (k: 'input_lengths' | 'output_lengths'): number[] | null => (g.runs.every((r) => r.shape[k]) ? g.runs.flatMap((r) => Array.from(r.shape[k]!)) : null);
  const requests = g.runs.reduce<number | null>((s, r) => (s === null || r.shape.outcome?.requests == null ? null : s + r.shape.outcome.requests), 0);
  return { ...first, outcome: { requests, seed: g.runs.map((r) => r.shape.outcome?.seed ?? null), prompt_salt: g.runs.map((r) => r.shape.outcome?.prompt_salt ?? null) }, input_lengths: pool('input_lengths'), output_lengths: pool('output_lengths') };
}

const mean = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;

/**
 * A against B over runs. Needs ≥ 2 runs per group with per-request data (the caller refuses
 * otherwise). The result has the pair comparison's shape (rendered, gated and exported the same
 * way), with `groups` saying the method and each figure's spreads.
 */
export function compareGroups(A: GroupSide, B: GroupSide, opts: CompareOptions): PairComparison & { groups: { a: string[]; b: string[]; figures: GroupFigureDetail[] } } {
  const sa = groupShape(A);
  const sb = groupShape(B);
  const shape = compareShapes(sa, sb);
  const differ = shapesDiffer(shape);
  const judged = !differ || opts.force;
  const note = judged ? null : 'no verdict: the load shapes differ (listed above); --force judges the figures anyway';
  const hasGoodput = [...A.runs, ...B.runs].every((r) => r.figures.goodput != null);
  const within = (g: GroupSide) => g.runs.map((r, i) => (r.sample ? withinVariances(r.sample, hasGoodput, opts.resamples, opts.seed + i) : {}));
  const wa = within(A);
  const wb = within(B);
  const valuesOf = (f: KeyFigure, g: GroupSide, w: FigureValues[]): RunValues | null => {
    const y = g.runs.map((r) => scaled(f, r.figures[f.id]));
    if (y.some((x) => x === null)) return null;
    return { y: y as number[], v: w.map((x) => x[f.id] ?? null) };
  };
  const figures = KEY_FIGURES.filter((f) => A.runs.some((r) => r.figures[f.id] != null) || B.runs.some((r) => r.figures[f.id] != null));
  const paired = figures.map((f) => ({ f, a: valuesOf(f, A, wa), b: valuesOf(f, B, wb) }));
  const comparable = paired.filter((p) => p.a && p.b);
  const level = familyLevels(opts.confidence, judged ? comparable.length : 0, false).perFigure;
  const details: GroupFigureDetail[] = [];
  const rows = paired.map(({ f, a, b }): FigureComparison => {
    const ga = a ? groupSpread(a) : null;
    const gb = b ? groupSpread(b) : null;
    const shown = (g: GroupSide) => {
      const xs = g.runs.map((r) => r.figures[f.id]).filter((x): x is number => typeof x === 'number');
      if (xs.length === 0) return null;
      // Relative figures: the geometric mean, whose ratio is the reported change.
      return f.delta === 'relative' && xs.every((x) => x > 0) ? Math.exp(mean(xs.map(Math.log))) : mean(xs);
    };
    if (!ga || !gb) {
      details.push({ id: f.id, a: ga, b: gb, df: null });
      return { figure: f, a: shown(A), b: shown(B), delta: null, ci: null, verdict: 'n/a', regression: false, detectable: null, requests_needed: null };
    }
    const diff = differenceOverRuns(ga, gb, level);
    details.push({ id: f.id, a: ga, b: gb, df: diff.df });
    const toDelta = (x: number) => (f.delta === 'relative' ? Math.expm1(x) : x);
    const delta = toDelta(diff.d);
    const ci: [number, number] = [toDelta(diff.ci[0]), toDelta(diff.ci[1])];
    let verdict: Verdict = 'not judged';
    if (judged) {
      const significant = ci[0] > 0 || ci[1] < 0 || (diff.se === 0 && diff.d !== 0);
      const large = f.delta === 'absolute' || Math.abs(delta) >= opts.minEffect;
      verdict = significant && large ? (isWorse(f, delta) ? 'worse' : 'better') : 'no significant change';
    }
    const half = (ci[1] - ci[0]) / 2;
    const detectable = f.delta === 'relative' ? Math.max(half, opts.minEffect) : half;
    const av = shown(A);
    const bv = shown(B);
    return { figure: f, a: av, b: bv, delta, ci, verdict, regression: verdict === 'worse' && regressionBeyond(f, av, bv, delta, opts.failOnRegression), detectable, requests_needed: null };
  });
  const regime = loadRegime(sa, sb, A.runs[0]!.figures.request_throughput ?? null, B.runs[0]!.figures.request_throughput ?? null);
  return {
    a: A.label,
    b: B.label,
    shape,
    // The first runs' fingerprints, shown (the groups' own environment check is not done yet).
    environment: compareEnvironments(A.runs[0]?.environment ?? null, B.runs[0]?.environment ?? null, opts.vary ?? []),
    shapes_differ: differ,
    judged,
    note,
    figures: rows,
    quality: null,
    headline: buildHeadline(rows, { judged, regime, offered: sa.load?.request_rate, note }),
    method: {
      resampling_unit: `the run (${A.runs.length} + ${B.runs.length} runs): each figure's mean over runs, judged against the larger of the runs' spread and their own bootstrap noise (Welch–Satterthwaite t)`,
      resamples: opts.resamples,
      itl_resamples: opts.resamples,
      seed: opts.seed,
      confidence: opts.confidence,
      per_figure_level: level,
      accuracy_level: null,
      min_effect: opts.minEffect,
      fail_on_regression: opts.failOnRegression,
    },
    groups: { a: A.runs.map((r) => r.label), b: B.runs.map((r) => r.label), figures: details },
  };
}
