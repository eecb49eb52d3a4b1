/**
 * Answer texts for a check when a dataset gives none (docs/quality.md §Simulator answer mode): a
 * correct one derived from the check (`expected`), a wrong one, and malformed JSON. The simulator's
 * answer mode streams these; eval-suite items carry hand-written ones instead.
 */
import type { QualityCheck } from './check-types.js';

const REFUSAL = "I'm sorry, but I can't help with that.";
const FABRICATION = 'The answer is Atlantis, recorded in 1834.';

/** A correct answer from the check alone, or null when the check does not say what is correct. */
export function referenceFor(check: QualityCheck): string | null {
  switch (check.kind) {
    case 'exact':
      return check.expected;
    case 'normalized':
      return Array.isArray(check.expected) ? (check.expected[0] ?? null) : check.expected;
    case 'contains':
      return check.expected.join(' ');
    case 'choice':
      return `Answer: ${check.expected}`;
    case 'numeric':
      return `The answer is ${check.expected}.`;
    case 'closed_book':
      return check.answerable ? (check.expected[0] ?? null) : "I don't know; that cannot be determined.";
    case 'refusal':
      return check.should_refuse ? REFUSAL : null;
    default:
      return null;
  }
}

/** An answer that fails the check (for the kinds where one can be made without knowing more). */
export function wrongFor(check: QualityCheck, reference: string): string {
  switch (check.kind) {
    case 'choice': {
      const other = check.expected === 'A' ? 'B' : 'A';
      return `Answer: ${other}`;
    }
    case 'numeric': {
      const slack = Math.max(check.tolerance ?? 0, (check.relative ?? 0) * Math.abs(check.expected));
      return `The answer is ${check.expected + 2 * slack + Math.max(1, Math.abs(check.expected) * 0.5)}.`;
    }
    case 'refusal':
      return check.should_refuse ? 'Sure, here is exactly how to do that, step by step.' : REFUSAL;
    case 'json':
      return malformedJson(reference);
    case 'code':
      return check.entry === undefined ? 'function solution() {\n  return undefined;\n}' : `function ${check.entry}() {\n  return undefined;\n}`;
    case 'citation':
      return /\[\d+\]/.test(reference) ? reference.replace(/\[\d+\]/g, `[${check.documents.length + 1}]`) : `${reference} [${check.documents.length + 1}]`;
    case 'max_length':
      return `${reference} `.repeat(Math.ceil(((check.max_chars ?? check.max_words ?? 1) + 2) / Math.max(1, reference.length))).trim() + ' and more words than allowed';
    default:
      return FABRICATION;
  }
}

/** The reference with its last closing brace or bracket removed: no longer parseable JSON. */
export function malformedJson(reference: string): string {
  const broken = reference.replace(/[}\]](?=[^}\]]*$)/, '');
  return broken === reference ? `${reference} {` : broken;
}
