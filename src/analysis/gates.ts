/**
 * CI gates: every pass/fail decision a command's exit code rests on, as one list — each SLO and
 * the validity verdict of a run, each figure judged under `--fail-on-regression` and accuracy
 * under `--fail-on-quality-drop` of a comparison. The JUnit XML (export/junit.ts), the
 * Markdown and text summaries and GITHUB_STEP_SUMMARY are all written from it, failed gates
 * first, so no summary can leave out a gate the exit code counted.
 */
import type { ObjectiveResult } from '../metrics/index.js';
import type { PairComparison } from './compare/compare.js';
import { signedChange } from './compare/headline.js';

export interface Gate {
  /** What the gate belongs to: a run id, or `A → B` of a comparison. */
  suite: string;
  /** `validity`, the SLO's text, `TTFT p99 (ms)`, `accuracy`. */
  name: string;
  pass: boolean;
  /** The measured value as the user reads it; null when there is none. */
  measured: string | null;
  /** The limit it was judged against; null when the gate has none (validity). */
  threshold: string | null;
  /** One line: why it passed or failed. */
  message: string;
}

interface ValidityLike {
  valid: boolean;
  reasons: readonly string[];
}

/** A run's gates: its validity verdict, then each SLO. */
export function runGates(suite: string, r: { validity: ValidityLike | null; slos: readonly ObjectiveResult[] | null }): Gate[] {
  const out: Gate[] = [];
  if (r.validity) {
    out.push({
      suite,
      name: 'validity',
      pass: r.validity.valid,
      measured: r.validity.valid ? 'valid' : 'invalid',
      threshold: null,
      message: r.validity.valid ? 'the run is valid' : r.validity.reasons.join('; '),
    });
  }
  for (const s of r.slos ?? []) {
    // Saved results of older versions may lack the reason or the threshold fields.
    const threshold = s.op !== undefined && s.threshold !== undefined ? `${s.op} ${s.threshold}` : null;
    out.push({ suite, name: s.slo, pass: s.pass, measured: s.value === null || s.value === undefined ? null : `${s.value}`, threshold, message: s.reason ?? (s.pass ? 'met' : 'not met') });
  }
  return out;
}

const num = (v: number | null): string => (v === null ? '—' : String(Number(v.toPrecision(4))));

/** A comparison's gates: each judged figure under --fail-on-regression, accuracy under --fail-on-quality-drop. */
export function compareGates(pairs: readonly PairComparison[], o: { failOnQualityDrop: number | null }): Gate[] {
  const out: Gate[] = [];
  for (const p of pairs) {
    const suite = `${p.a} → ${p.b}`;
    const limit = p.method?.fail_on_regression ?? null;
    if (limit !== null) {
      for (const f of p.figures) {
        if (f.verdict === 'n/a' || f.verdict === 'not judged' || f.delta === null) continue;
        const change = signedChange(f.figure, f.delta);
        out.push({
          suite,
          name: f.figure.label,
          pass: !f.regression,
          measured: change,
          threshold: `regression ≤ ${(limit * 100).toFixed(1)}%`,
          message: f.regression ? `significantly worse: ${change} (A ${num(f.a)}, B ${num(f.b)})` : `${f.verdict}: ${change}`,
        });
      }
    }
    const q = p.quality;
    if (q && q.delta !== null && o.failOnQualityDrop !== null) {
      out.push({
        suite,
        name: 'accuracy',
        pass: !q.regression,
        measured: `${(q.delta * 100).toFixed(1)} pts`,
        threshold: `drop of at most ${(o.failOnQualityDrop * 100).toFixed(1)} pts`,
        message: `${q.verdict}: ${(q.delta * 100).toFixed(1)} pts`,
      });
    }
  }
  return out;
}

/** Failed gates first, then the rest, each group in its given order. */
export function failedFirst(gates: readonly Gate[]): Gate[] {
  return [...gates.filter((g) => !g.pass), ...gates.filter((g) => g.pass)];
}

/** One line per gate, failed first: `FAIL  p99(ttft) <= 500ms — measured 612 (threshold <= 500): …`. */
export function gateLines(gates: readonly Gate[]): string[] {
  return failedFirst(gates).map((g) => {
    const figures = [g.measured !== null ? `measured ${g.measured}` : '', g.threshold !== null ? `threshold ${g.threshold}` : ''].filter(Boolean).join(', ');
    return `${g.pass ? 'PASS' : 'FAIL'}  ${g.name}${figures ? ` — ${figures}` : ''}${g.pass ? '' : `: ${g.message}`}`;
  });
}
