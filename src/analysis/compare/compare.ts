/**
 * A/B comparison of runs: first whether the load was the same (load-shape.ts), then each key
 * figure's change with a bootstrap confidence interval (bootstrap.ts) and a verdict.
 *
 * Verdict per figure: the interval of B − A (as a share of A for relative figures) at the
 * per-figure level 1 − α_speed/k must exclude 0, and the change must be at least `minEffect`
 * (relative figures): smaller shifts are "no significant change" however sure the interval is.
 * Which way is better is the figure's own.
 *
 * One family per pair: every verdict that can say "changed" (and so exit 4) — the k speed figures
 * and, when both runs carried answer checks, accuracy — shares α = 1 − confidence by a weighted
 * Bonferroni split (familyLevels), so the chance of calling anything changed when nothing changed
 * stays ≤ α for the whole comparison.
 */
import { createRng } from '../../util/rng.js';
import { percentile } from '../../metrics/index.js';
import { resampleFigures, scratchFor, type RunSample } from './bootstrap.js';
import { KEY_FIGURES, type FigureValues, type KeyFigure } from './key-figures.js';
import { compareShapes, shapesDiffer, type ShapeItem, type ShapeSource } from './load-shape.js';
import { compareQuality, type QualityComparison, type QualitySample } from './quality-delta.js';
import { buildHeadline, loadRegime, type Headline } from './headline.js';
import { compareEnvironments, type EnvironmentComparison } from '../environment-diff.js';
import type { RunEnvironment } from '../environment.js';

export interface CompareSide {
  /** How the user named it (a path). */
  label: string;
  kind: 'run' | 'vllm';
  shape: ShapeSource;
  figures: FigureValues;
  /** Per-request data for the bootstrap; null for vLLM files (figures only). */
  sample: RunSample | null;
  /** Answer checks (docs/quality.md); null or absent when the run carried none. */
  quality?: QualitySample | null;
  /**
   * What decides which prompt each request id got (the workload's description and the seed, as
   * one string): equal on both sides → the same prompts, so accuracy is compared pair by pair.
   */
  prompts?: string | null;
  /** Why the run is invalid (its validity verdict's first reason); null or absent when valid. */
  invalid?: string | null;
  /** What the run measured (result.json `environment`); null or absent when it carries none. */
  environment?: RunEnvironment | null;
}

export interface CompareOptions {
  resamples: number;
  seed: number;
  /** Family-wise confidence, e.g. 0.95. */
  confidence: number;
  /** Smallest relative change that counts, e.g. 0.02. */
  minEffect: number;
  force: boolean;
  /** Fingerprint fields and groups declared under test (`--vary`, environment-diff.ts parseVary); a server-side difference elsewhere forbids a verdict. */
  vary?: readonly string[];
  /** --fail-on-regression as a share (0.05), or null. */
  failOnRegression: number | null;
  /** --fail-on-quality-drop: accuracy points as a share (0.01 = 1 point), or null. */
  failOnQualityDrop?: number | null;
}

export type Verdict = 'better' | 'worse' | 'no significant change' | 'not judged' | 'n/a';

export interface FigureComparison {
  figure: KeyFigure;
  a: number | null;
  b: number | null;
  /** B − A: relative figures as a share of A, absolute ones as a difference; null if either is missing. */
  delta: number | null;
  ci: [number, number] | null;
  verdict: Verdict;
  /** Significantly worse by more than --fail-on-regression. */
  regression: boolean;
  /**
   * The smallest change these two runs could call significant: the interval's half-width, and at
   * least --min-effect for relative figures (docs/compare.md §Detectable change); null without an interval.
   */
  detectable: number | null;
  /**
   * For a figure judged "no significant change": requests per run that would bring `detectable`
   * down to the threshold (--fail-on-regression, else --min-effect), the half-width shrinking as
   * 1/√n; null when it is already there, the figure changed significantly, or it is not defined
   * (absolute figures, no interval).
   */
  requests_needed: number | null;
}

export interface PairComparison {
  a: string;
  b: string;
  shape: ShapeItem[];
  shapes_differ: boolean;
  /** The two runs' environment fingerprints side by side (environment-diff.ts). */
  environment: EnvironmentComparison;
  /** False when the shapes or the server environments differ (without --force) or a side has no per-request data. */
  judged: boolean;
  /** Why no verdicts were given, in one sentence; null when judged. */
  note: string | null;
  figures: FigureComparison[];
  method: {
    resampling_unit: string;
    resamples: number;
    /** The same as resamples (ITL once had fewer: its resamples read every gap); kept for readers of compare/1. */
    itl_resamples: number;
    seed: number;
    /** Family-wise: over the speed figures and accuracy together. */
    confidence: number;
    per_figure_level: number;
    /** The accuracy test's level within the family; null when accuracy is not tested. */
    accuracy_level: number | null;
    min_effect: number;
    /** --fail-on-regression as a share, or null. */
    fail_on_regression: number | null;
  } | null;
  /** Accuracy of B against A (docs/compare.md §Quality); null unless both runs carried answer checks. */
  quality: QualityComparison | null;
  /** The one headline, derived from `figures` (headline.ts). */
  headline: Headline;
}

function deltaOf(f: KeyFigure, a: number | null | undefined, b: number | null | undefined): number | null {
  if (a === null || a === undefined || b === null || b === undefined) return null;
  if (f.delta === 'absolute') return b - a;
  return a !== 0 ? b / a - 1 : null;
}

/** Worse when the figure moved the wrong way: up for lower-is-better figures. */
export function isWorse(f: KeyFigure, delta: number): boolean {
  return f.better === 'lower' ? delta > 0 : delta < 0;
}

export function regressionBeyond(f: KeyFigure, a: number | null, b: number | null, delta: number, threshold: number | null): boolean {
  if (threshold === null || !isWorse(f, delta)) return false;
  if (f.delta === 'relative') return Math.abs(delta) > threshold;
  // Absolute figures (error rate): relative to the baseline; any rise from zero counts.
  return a === 0 ? (b ?? 0) > 0 : a !== null && b !== null && Math.abs(b / a - 1) > threshold;
}

/**
 * The weighted Bonferroni split of α = 1 − confidence (docs/compare.md §Family-wise level):
 * accuracy, when tested, takes ACCURACY_SHARE of α and the k speed figures share the rest
 * equally; a part that is not tested gives its share to the other (it can call nothing changed).
 * Half, not 1/(k + 1): accuracy is one question weighed against all the speed figures together,
 * and at α/(k + 1) a drop of a few points on a few hundred prompts could not be seen.
 */
export const ACCURACY_SHARE = 0.5;

export function familyLevels(confidence: number, speedFigures: number, accuracyTested: boolean): { perFigure: number; accuracy: number | null } {
  const alpha = 1 - confidence;
  const accuracyAlpha = accuracyTested ? (speedFigures > 0 ? alpha * ACCURACY_SHARE : alpha) : 0;
  const speedAlpha = alpha - accuracyAlpha;
  return { perFigure: 1 - speedAlpha / Math.max(1, speedFigures), accuracy: accuracyTested ? 1 - accuracyAlpha : null };
}

export function comparePair(A: CompareSide, B: CompareSide, opts: CompareOptions): PairComparison {
  const shape = compareShapes(A.shape, B.shape);
  const differ = shapesDiffer(shape);
  const figures = KEY_FIGURES.filter((f) => A.figures[f.id] !== undefined || B.figures[f.id] !== undefined);
  const withCi = A.sample !== null && B.sample !== null;
  const environment = compareEnvironments(A.environment ?? null, B.environment ?? null, opts.vary ?? []);
  const envDiffers = environment.blocking.length > 0;
  const judged = withCi && ((!differ && !envDiffers) || opts.force);
  const note = !withCi
    ? 'figures only, no confidence intervals and no verdicts: a vLLM result file holds no per-request data'
    : differ && !opts.force
      ? 'no verdict: the load shapes differ (listed above); --force judges the figures anyway'
      : envDiffers && !opts.force
        ? `no verdict: the server differs in ${environment.blocking.join(', ')}, not declared under test; --vary ${environment.blocking.join(',')} or --force judges the figures`
        : null;

  const comparable = figures.filter((f) => deltaOf(f, A.figures[f.id], B.figures[f.id]) !== null);
  const k = Math.max(1, comparable.length);
  // Speed figures can say "changed" only when judged; accuracy only when both runs carried checks.
  const accuracyTested = !!(A.quality && B.quality && A.quality.answered > 0 && B.quality.answered > 0);
  const levels = familyLevels(opts.confidence, judged ? comparable.length : 0, accuracyTested);
  const level = judged ? levels.perFigure : 1 - (1 - opts.confidence) / k;
  const cis = new Map<string, [number, number]>();
  if (withCi && comparable.length > 0) {
    const base = createRng(opts.seed);
    const rngA = base.fork();
    const rngB = base.fork();
    const sa = scratchFor(A.sample!);
    const sb = scratchFor(B.sample!);
    const hasGoodput = A.figures.goodput != null && B.figures.goodput != null;
    const draws = new Map(comparable.map((f) => [f.id, [] as number[]]));
    for (let r = 0; r < opts.resamples; r++) {
      const fa = resampleFigures(A.sample!, rngA, sa, hasGoodput);
      const fb = resampleFigures(B.sample!, rngB, sb, hasGoodput);
      for (const f of comparable) {
        const d = deltaOf(f, fa[f.id], fb[f.id]);
        if (d !== null && Number.isFinite(d)) draws.get(f.id)!.push(d);
      }
    }
    for (const f of comparable) {
      const xs = Float64Array.from(draws.get(f.id)!).sort();
      if (xs.length > 0) cis.set(f.id, [percentile(xs, ((1 - level) / 2) * 100), percentile(xs, (1 - (1 - level) / 2) * 100)]);
    }
  }

  const requests = (x: CompareSide): number | null => x.shape.outcome?.requests ?? x.shape.input_lengths?.length ?? null;
  const nA = requests(A);
  const nB = requests(B);
  const n = nA !== null && nB !== null ? (nA + nB) / 2 : null;
  const target = opts.failOnRegression ?? opts.minEffect;
  const rows = figures.map((f): FigureComparison => {
    const a = A.figures[f.id] ?? null;
    const b = B.figures[f.id] ?? null;
    const delta = deltaOf(f, a, b);
    const ci = cis.get(f.id) ?? null;
    let verdict: Verdict = 'n/a';
    if (delta !== null && ci !== null && judged) {
      const significant = ci[0] > 0 || ci[1] < 0;
      const large = f.delta === 'absolute' || Math.abs(delta) >= opts.minEffect;
      verdict = significant && large ? (isWorse(f, delta) ? 'worse' : 'better') : 'no significant change';
    } else if (delta !== null && !judged) verdict = 'not judged';
    const halfWidth = ci ? (ci[1] - ci[0]) / 2 : null;
    const detectable = halfWidth === null ? null : f.delta === 'relative' ? Math.max(halfWidth, opts.minEffect) : halfWidth;
    const requestsNeeded = verdict === 'no significant change' && halfWidth !== null && f.delta === 'relative' && n !== null && target > 0 && halfWidth > target ? Math.ceil(n * (halfWidth / target) ** 2) : null;
    return { figure: f, a, b, delta, ci, verdict, regression: verdict === 'worse' && regressionBeyond(f, a, b, delta!, opts.failOnRegression), detectable, requests_needed: requestsNeeded };
  });
  const regime = loadRegime(A.shape, B.shape, A.figures.request_throughput ?? null, B.figures.request_throughput ?? null);
  const headline = buildHeadline(rows, { judged, regime, offered: A.shape.load?.request_rate, note });
  const quality =
    A.quality && B.quality
      ? compareQuality(A.quality, B.quality, {
          confidence: levels.accuracy ?? opts.confidence,
          samePrompts: A.prompts != null && A.prompts === B.prompts,
          failOnDrop: opts.failOnQualityDrop ?? null,
        })
      : null;
  return {
    a: A.label,
    b: B.label,
    shape,
    quality,
    shapes_differ: differ,
    environment,
    judged,
    note,
    figures: rows,
    headline,
    method: withCi
      ? {
          resampling_unit: 'requests, in non-overlapping blocks of ⌈√n⌉ consecutive ones (latency percentiles, error rate); 1-second buckets of the measured window (throughputs, goodput, cost per 1M tokens)',
          resamples: opts.resamples,
          itl_resamples: opts.resamples,
          seed: opts.seed,
          confidence: opts.confidence,
          per_figure_level: level,
          accuracy_level: levels.accuracy,
          min_effect: opts.minEffect,
          fail_on_regression: opts.failOnRegression,
        }
      : null,
  };
}
