/**
 * The quality part of `infermeter compare`'s output (docs/compare.md §Quality): the accuracy
 * delta with its interval and verdict, identical outputs, and the accuracy part of the headline.
 */
import type { PairComparison } from '../analysis/compare/compare.js';
import type { QualityComparison } from '../analysis/compare/quality-delta.js';

const pts = (x: number): string => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x * 100).toFixed(1)} pts`;
const pct = (x: number | null): string => (x === null ? '—' : `${(x * 100).toFixed(1)}%`);

/** A confidence level as a percentage with what digits it needs: 95%, 97.5%, 99.86%. */
export function levelPct(x: number): string {
  return `${String(Number((x * 100).toFixed(2)))}%`;
}

/** The pair's headline (analysis/compare/headline.ts), with the accuracy change when both runs carried answer checks. */
export function compareHeadline(p: PairComparison): string {
  const q = p.quality;
  if (!q || q.delta === null) return p.headline.text;
  const significant = q.verdict === 'better' || q.verdict === 'worse';
  return `${p.headline.text}; accuracy ${pts(q.delta)} (${significant ? 'significant' : 'not significant'})`;
}

export function qualityLines(q: QualityComparison): string[] {
  const level = levelPct(q.confidence);
  const out = [
    `Accuracy: A ${pct(q.a.accuracy)} (${q.a.passed}/${q.a.answered}), B ${pct(q.b.accuracy)} (${q.b.passed}/${q.b.answered})`,
  ];
  if (q.delta !== null && q.ci !== null) {
    const how =
      q.method === 'paired'
        ? `paired over ${q.pairs!.n} prompts answered in both runs (A only right: ${q.pairs!.a_only}, B only right: ${q.pairs!.b_only}; exact McNemar p = ${q.p_value! < 1e-4 ? q.p_value!.toExponential(1) : q.p_value!.toFixed(4)})`
        : `unpaired (${q.unpaired_reason}; Newcombe interval)`;
    out.push(`  change B − A: ${pts(q.delta)}, ${level} interval [${pts(q.ci[0])}, ${pts(q.ci[1])}], ${how}`);
  }
  out.push(`  verdict: ${q.verdict}${q.regression ? ' (REGRESSION beyond --fail-on-quality-drop)' : ''}`);
  if (q.outputs) {
    const o = q.outputs;
    const median = o.first_difference_median === null ? '' : `; where they differ, the first difference is at word ${o.first_difference_median} (median)`;
    out.push(`  identical outputs: ${o.identical}/${o.compared} (${pct(o.share)})${median} — meaningful with greedy decoding`);
  }
  return out;
}
