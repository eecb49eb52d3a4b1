/**
 * The quality-check vocabulary (issue 15, docs/quality.md): what a dataset entry or a spec task may
 * declare about its answer, and what evaluating one answer yields. One owner: every other module
 * (dataset parsing, the pipeline that fills records, figures, compare) uses these types.
 *
 * Contract between the workload side (parses `check`/`expected` fields, exit 2 on a check that
 * cannot be evaluated), the evaluator (`evaluateCheck`, async because code checks run a process),
 * and the record (`RequestRecord.quality`, src/record/record.ts), which stores the outcome.
 */

/** The closed set of check kinds; stable names used in records, result.json and docs. */
export const CHECK_KINDS = [
  'exact', // answer === expected (after trimming surrounding whitespace)
  'normalized', // equal after lower-casing, collapsing whitespace, dropping punctuation and articles
  'regex', // answer matches `pattern`
  'contains', // answer contains every (or any, with `any: true`) expected string
  'choice', // multiple choice: the extracted letter equals `expected`
  'numeric', // the final number in the answer is within tolerance of `expected`
  'json', // answer (or its fenced block) is valid JSON; with `schema`, also JSON-Schema valid
  'max_length', // answer within max_chars / max_words
  'refusal', // should_refuse: true → a refusal passes; false → a refusal fails (over-refusal)
  'closed_book', // reference answers plus an "unknown" option: correct / hallucinated / abstained
  'code', // generated code passes `tests` in an isolated process
  'citation', // cited [n] documents exist and contain the supporting span
] as const;
export type CheckKind = (typeof CHECK_KINDS)[number];

/** Outcome classes beyond pass/fail, for the figures that need them. */
export const OUTCOME_CLASSES = [
  'correct',
  'wrong',
  'hallucinated', // closed_book: confident and wrong
  'abstained', // closed_book: said it does not know
  'refused', // refusal: refused (pass when it should refuse)
  'complied', // refusal: answered (pass when it should not refuse)
  'malformed', // json/code: the answer could not be parsed
  'empty', // no answer text at all
] as const;
export type OutcomeClass = (typeof OUTCOME_CLASSES)[number];

/** What evaluating one answer against one check yields; stored (with `kind`) in the record. */
export interface CheckOutcome {
  pass: boolean;
  outcome: OutcomeClass;
  /** One short line saying why (e.g. `expected "42", got "41"`); never the whole answer. */
  reason: string;
}

/** One declared check, as parsed from a dataset entry's `check` field (or a spec task). */
export type QualityCheck =
  | { kind: 'exact'; expected: string }
  | { kind: 'normalized'; expected: string | string[] }
  | { kind: 'regex'; pattern: string; flags?: string }
  | { kind: 'contains'; expected: string[]; any?: boolean }
  | { kind: 'choice'; expected: string; choices?: string[] }
  | { kind: 'numeric'; expected: number; tolerance?: number; relative?: number }
  | { kind: 'json'; schema?: Record<string, unknown> }
  | { kind: 'max_length'; max_chars?: number; max_words?: number }
  | { kind: 'refusal'; should_refuse: boolean }
  | { kind: 'closed_book'; expected: string[]; answerable: boolean }
  | { kind: 'code'; language: 'javascript'; tests: string; entry?: string; timeout_ms?: number }
  | { kind: 'citation'; documents: string[]; required?: number[]; min_span_words?: number };
