/**
 * Accuracy of B against A (issue 15, docs/compare.md §Quality): the change in the share of
 * passing answers with a confidence interval and a verdict, and — when both runs sent the same
 * prompts — how many answers came out identical and where the others first differ.
 *
 * Paired (same prompts): requests are matched by id (the index into the seeded workload, so the
 * same dataset entry when both runs used the same workload and seed) over the ones answered on
 * both sides. The verdict is the exact McNemar test on the discordant pairs (b: A passed and B
 * failed; c: the reverse), two-sided; the interval is the paired difference (c − b)/n ± z·se with
 * se = √(b + c − (c − b)²/n)/n. Unpaired: the difference of the two shares with Newcombe's hybrid
 * score interval (from each side's Wilson interval); the verdict is whether it excludes 0.
 */
import type { RequestRecord } from '../../record/record.js';
import { checkedRecords, wilsonInterval } from '../../metrics/quality.js';
import { percentile } from '../../metrics/index.js';

export interface QualitySample {
  answered: number;
  passed: number;
  /** Answered checked requests by record id. */
  byId: Map<number, { pass: boolean; kind: string; text: string | null }>;
}

/** The checked, answered requests of a run's records; null when none carried a check. */
export function qualitySample(records: readonly RequestRecord[]): QualitySample | null {
  const checked = checkedRecords(records);
  if (checked.length === 0) return null;
  const byId = new Map<number, { pass: boolean; kind: string; text: string | null }>();
  let passed = 0;
  for (const r of checked) {
    if (r.status !== 'ok') continue;
    byId.set(r.id, { pass: r.quality!.pass, kind: r.quality!.kind, text: r.output_text });
    if (r.quality!.pass) passed++;
  }
  return { answered: byId.size, passed, byId };
}

export type QualityVerdict = 'better' | 'worse' | 'no significant change' | 'n/a';

export interface QualityComparison {
  method: 'paired' | 'unpaired';
  /** Why the comparison is unpaired (null when paired). */
  unpaired_reason: string | null;
  a: { answered: number; passed: number; accuracy: number | null };
  b: { answered: number; passed: number; accuracy: number | null };
  /** B − A in accuracy (a share: 0.042 = 4.2 points); paired: over the matched pairs. */
  delta: number | null;
  ci: [number, number] | null;
  confidence: number;
  /** Paired: the exact McNemar p-value (two-sided); null unpaired. */
  p_value: number | null;
  /** Paired: matched pairs, A-only passes (b) and B-only passes (c). */
  pairs: { n: number; a_only: number; b_only: number } | null;
  verdict: QualityVerdict;
  /** Significantly worse by more than --fail-on-quality-drop (points). */
  regression: boolean;
  /**
   * Paired, over pairs with both answers' text: the share of identical answers, and the median
   * position (1-based, in whitespace-separated words) of the first difference among the others.
   * Meaningful with greedy decoding (temperature 0), where a change in the engine is the only
   * reason two answers to the same prompt differ.
   */
  outputs: { compared: number; identical: number; share: number; first_difference_median: number | null } | null;
}

/** Normal quantile for a two-sided interval at `confidence` (Acklam's rational approximation). */
export function normalQuantile(p: number): number {
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const lo = 0.02425;
  if (p < lo) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  if (p > 1 - lo) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
}

/** Exact two-sided McNemar p-value: 2·P(X ≤ min(b, c)), X ~ Binomial(b + c, ½), capped at 1. */
export function mcnemarExactP(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  const k = Math.min(b, c);
  // Σ_{i≤k} C(n, i) / 2^n in log space (2^n underflows past n ≈ 1074).
  let logTerm = -n * Math.LN2;
  let maxLog = logTerm;
  const logs = [logTerm];
  for (let i = 0; i < k; i++) {
    logTerm += Math.log((n - i) / (i + 1));
    logs.push(logTerm);
    maxLog = Math.max(maxLog, logTerm);
  }
  const tail = Math.exp(maxLog) * logs.reduce((s, l) => s + Math.exp(l - maxLog), 0);
  return Math.min(1, 2 * tail);
}

/** Position (1-based, in whitespace-separated words) of the first difference of two answers; null when equal. */
export function firstDifference(x: string, y: string): number | null {
  if (x === y) return null;
  const a = x.trim().split(/\s+/);
  const b = y.trim().split(/\s+/);
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i + 1;
  // One is a prefix of the other (or they differ only in spacing): the first word past the shorter.
  return n + 1;
}

export interface QualityCompareOptions {
  confidence: number;
  /** The runs sent the same prompts (same workload and seed); pairing also needs matching check kinds. */
  samePrompts: boolean;
  /** --fail-on-quality-drop as a share (0.01 = 1 point), or null. */
  failOnDrop: number | null;
}

const share = (s: QualitySample) => ({ answered: s.answered, passed: s.passed, accuracy: s.answered > 0 ? s.passed / s.answered : null });

export function compareQuality(A: QualitySample, B: QualitySample, opts: QualityCompareOptions): QualityComparison {
  const common = [...A.byId.keys()].filter((id) => B.byId.has(id)).sort((x, y) => x - y);
  const kindsAgree = common.every((id) => A.byId.get(id)!.kind === B.byId.get(id)!.kind);
  const unpairedReason = !opts.samePrompts
    ? 'the runs did not send the same prompts (workload or seed differ)'
    : common.length === 0
      ? 'no request was answered in both runs'
      : !kindsAgree
        ? 'the same request ids carry different checks'
        : null;
  const z = normalQuantile(1 - (1 - opts.confidence) / 2);
  const alpha = 1 - opts.confidence;
  let delta: number | null = null;
  let ci: [number, number] | null = null;
  let pValue: number | null = null;
  let pairs: QualityComparison['pairs'] = null;
  let outputs: QualityComparison['outputs'] = null;
  let significant = false;
  if (unpairedReason === null) {
    let aOnly = 0;
    let bOnly = 0;
    let compared = 0;
    let identical = 0;
    const firstDiffs: number[] = [];
    for (const id of common) {
      const x = A.byId.get(id)!;
      const y = B.byId.get(id)!;
      if (x.pass && !y.pass) aOnly++;
      else if (!x.pass && y.pass) bOnly++;
      if (x.text !== null && y.text !== null) {
        compared++;
        const at = firstDifference(x.text, y.text);
        if (at === null) identical++;
        else firstDiffs.push(at);
      }
    }
    const n = common.length;
    delta = (bOnly - aOnly) / n;
    const se = Math.sqrt(Math.max(0, aOnly + bOnly - ((bOnly - aOnly) * (bOnly - aOnly)) / n)) / n;
    ci = [Math.max(-1, delta - z * se), Math.min(1, delta + z * se)];
    pValue = mcnemarExactP(aOnly, bOnly);
    significant = pValue < alpha;
    pairs = { n, a_only: aOnly, b_only: bOnly };
    if (compared > 0) {
      const sorted = Float64Array.from(firstDiffs).sort();
      outputs = { compared, identical, share: identical / compared, first_difference_median: sorted.length > 0 ? percentile(sorted, 50) : null };
    }
  } else if (A.answered > 0 && B.answered > 0) {
    const pa = A.passed / A.answered;
    const pb = B.passed / B.answered;
    const [la, ua] = wilsonInterval(A.passed, A.answered, z)!;
    const [lb, ub] = wilsonInterval(B.passed, B.answered, z)!;
    delta = pb - pa;
    ci = [delta - Math.sqrt((pb - lb) ** 2 + (ua - pa) ** 2), delta + Math.sqrt((ub - pb) ** 2 + (pa - la) ** 2)];
    significant = ci[0] > 0 || ci[1] < 0;
  }
  const verdict: QualityVerdict = delta === null ? 'n/a' : !significant || delta === 0 ? 'no significant change' : delta < 0 ? 'worse' : 'better';
  return {
    method: unpairedReason === null ? 'paired' : 'unpaired',
    unpaired_reason: unpairedReason,
    a: share(A),
    b: share(B),
    delta,
    ci,
    confidence: opts.confidence,
    p_value: pValue,
    pairs,
    verdict,
    regression: verdict === 'worse' && opts.failOnDrop !== null && -delta! > opts.failOnDrop,
    outputs,
  };
}
