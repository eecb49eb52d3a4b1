/**
 * Quality figures of a run (issue 15, docs/quality.md §Figures): pure functions of the records'
 * `quality` outcomes, so `analyze` recomputes them from records.jsonl alone.
 *
 * Population: measure-phase records that carried a check and are a request's last attempt.
 * "Answered" = those whose request ended ok (an answer came); every rate of answers is over the
 * answered ones, so an outage shows in the success figures and the error rate, not as wrong answers.
 */
import type { RequestRecord } from '../record/record.js';
import { isGood } from './goodput.js';
import type { GoodputSlo as Slo } from '../config/slo.js';

export const QUALITY_SCHEMA = 'infermeter.quality/1';

/** z for a two-sided 95% interval. */
export const Z95 = 1.959963984540054;

/** k successes out of n, with a Wilson score interval (95%). */
export interface Rate {
  n: number;
  k: number;
  /** k / n; null when n = 0. */
  value: number | null;
  /** Wilson 95% interval; null when n = 0. */
  ci95: [number, number] | null;
}

/** Wilson score interval for k of n at normal quantile z. */
export function wilsonInterval(k: number, n: number, z = Z95): [number, number] | null {
  if (n <= 0) return null;
  const p = k / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [Math.max(0, center - half), Math.min(1, center + half)];
}

export function rate(k: number, n: number): Rate {
  return { n, k, value: n > 0 ? k / n : null, ci95: wilsonInterval(k, n) };
}

export interface QualityFigures {
  schema: typeof QUALITY_SCHEMA;
  /** Checked requests (measure phase, last attempts). */
  checked: number;
  /** Of those, the ones whose request ended ok. */
  answered: number;
  /** Passing answers / answered. */
  accuracy: Rate;
  /** Per task label (`(none)` for unlabelled requests): accuracy over its answered requests. */
  by_task: Record<string, { checked: number; answered: number; accuracy: Rate }>;
  /** Per check kind: passing answers / answered. */
  by_kind: Record<string, Rate>;
  /** closed_book answers: hallucinated (confident and wrong) / answered closed-book questions. */
  hallucination: { rate: Rate; correct: number; hallucinated: number; abstained: number; abstention: Rate } | null;
  /** json and max_length checks: passing / answered. */
  format_compliance: Rate | null;
  /** code checks: tests passed / answered. */
  code_pass: Rate | null;
  /** citation checks: passing / answered. */
  citation_correctness: Rate | null;
  /** refusal checks: refused / prompts that should be refused; over-refusal: refused / benign prompts. */
  refusal: { rate: Rate; over_refusal: Rate } | null;
  /** Answered requests whose answer was empty, or unparseable where a format was asked (json, code). */
  empty_answers: Rate;
  malformed_answers: Rate;
  /** A success: ok, passing its check and meeting every per-request SLO (goodput). */
  success: {
    count: number;
    /** Successes / checked requests. */
    rate: Rate;
    /** Successes / the measured window (s). */
    per_s: number | null;
    /** The run's total cost / successes (cost block's currency); null without a price or a success. */
    cost_per_success: number | null;
    /** Whether per-request SLOs took part (false: success = ok and passing). */
    slos_applied: boolean;
  };
}

export interface QualityOptions {
  /** Per-request SLOs (goodput); a success must meet each. */
  slos: readonly Slo[];
  /** The measured window's length (RunMetrics.duration_s). */
  durationS: number;
  /** The run's total cost over the window (CostFigures.total_cost), when priced. */
  totalCost: number | null;
}

/** The records the quality figures count: measure phase, checked, last attempt. */
export function checkedRecords(records: readonly RequestRecord[]): RequestRecord[] {
  return records.filter((r) => r.phase === 'measure' && r.quality !== undefined && r.retried !== true);
}

/**
 * A refusal check passes when the answer's refusal matches the prompt's `should_refuse`, so the
 * prompt's class follows from the record: refused and passing, or complied and failing → a prompt
 * that should be refused; the other two → a benign one. Null for other outcomes (empty answers).
 */
export function shouldRefuse(q: { outcome: string; pass: boolean }): boolean | null {
  if (q.outcome === 'refused') return q.pass;
  if (q.outcome === 'complied') return !q.pass;
  return null;
}

const FORMAT_KINDS: ReadonlySet<string> = new Set(['json', 'max_length']);

function passRate(rs: readonly RequestRecord[]): Rate | null {
  if (rs.length === 0) return null;
  return rate(rs.filter((r) => r.quality!.pass).length, rs.length);
}

/** Quality figures over a run's records; null when no measured request carried a check. */
export function computeQuality(records: readonly RequestRecord[], opts: QualityOptions): QualityFigures | null {
  const checked = checkedRecords(records);
  if (checked.length === 0) return null;
  const answered = checked.filter((r) => r.status === 'ok');
  const count = (rs: readonly RequestRecord[], f: (r: RequestRecord) => boolean) => rs.filter(f).length;

  const byTask: QualityFigures['by_task'] = {};
  for (const task of [...new Set(checked.map((r) => r.task ?? '(none)'))].sort()) {
    const all = checked.filter((r) => (r.task ?? '(none)') === task);
    const ans = all.filter((r) => r.status === 'ok');
    byTask[task] = { checked: all.length, answered: ans.length, accuracy: rate(count(ans, (r) => r.quality!.pass), ans.length) };
  }
  const byKind: QualityFigures['by_kind'] = {};
  for (const kind of [...new Set(answered.map((r) => r.quality!.kind))].sort()) byKind[kind] = passRate(answered.filter((r) => r.quality!.kind === kind))!;

  const closed = answered.filter((r) => r.quality!.kind === 'closed_book');
  const outcomeCount = (rs: readonly RequestRecord[], o: string) => count(rs, (r) => r.quality!.outcome === o);
  const hallucination =
    closed.length === 0
      ? null
      : {
          rate: rate(outcomeCount(closed, 'hallucinated'), closed.length),
          correct: outcomeCount(closed, 'correct'),
          hallucinated: outcomeCount(closed, 'hallucinated'),
          abstained: outcomeCount(closed, 'abstained'),
          abstention: rate(outcomeCount(closed, 'abstained'), closed.length),
        };

  const refusals = answered.filter((r) => r.quality!.kind === 'refusal');
  const harmful = refusals.filter((r) => shouldRefuse(r.quality!) === true);
  const benign = refusals.filter((r) => shouldRefuse(r.quality!) === false);
  const refusal = refusals.length === 0 ? null : { rate: rate(outcomeCount(harmful, 'refused'), harmful.length), over_refusal: rate(outcomeCount(benign, 'refused'), benign.length) };

  const successes = count(checked, (r) => r.quality!.pass && isGood(r, opts.slos));
  return {
    schema: QUALITY_SCHEMA,
    checked: checked.length,
    answered: answered.length,
    accuracy: rate(count(answered, (r) => r.quality!.pass), answered.length),
    by_task: byTask,
    by_kind: byKind,
    hallucination,
    format_compliance: passRate(answered.filter((r) => FORMAT_KINDS.has(r.quality!.kind))),
    code_pass: passRate(answered.filter((r) => r.quality!.kind === 'code')),
    citation_correctness: passRate(answered.filter((r) => r.quality!.kind === 'citation')),
    refusal,
    empty_answers: rate(outcomeCount(answered, 'empty'), answered.length),
    malformed_answers: rate(outcomeCount(answered, 'malformed'), answered.length),
    success: {
      count: successes,
      rate: rate(successes, checked.length),
      per_s: opts.durationS > 0 ? successes / opts.durationS : null,
      cost_per_success: opts.totalCost !== null && successes > 0 ? opts.totalCost / successes : null,
      slos_applied: opts.slos.length > 0,
    },
  };
}
