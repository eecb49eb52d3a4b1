/**
 * Grading one answer against one check (docs/quality.md). An empty or missing answer is `empty`
 * for every kind; otherwise the kind's own module decides. Async because code checks run a process.
 */
import type { CheckOutcome, QualityCheck } from './check-types.js';
import { checkCitation } from './check-citation.js';
import { checkClosedBook, checkJson, checkRefusal } from './check-judgement.js';
import { checkChoice, checkContains, checkExact, checkMaxLength, checkNormalized, checkNumeric, checkRegex } from './check-text.js';
import { checkCode } from './code-check.js';

export async function evaluateCheck(check: QualityCheck, answer: string | null): Promise<CheckOutcome> {
  if (answer === null || answer.trim() === '') return { pass: false, outcome: 'empty', reason: 'no answer text' };
  switch (check.kind) {
    case 'exact':
      return checkExact(check, answer);
    case 'normalized':
      return checkNormalized(check, answer);
    case 'regex':
      return checkRegex(check, answer);
    case 'contains':
      return checkContains(check, answer);
    case 'choice':
      return checkChoice(check, answer);
    case 'numeric':
      return checkNumeric(check, answer);
    case 'json':
      return checkJson(check, answer);
    case 'max_length':
      return checkMaxLength(check, answer);
    case 'refusal':
      return checkRefusal(check, answer);
    case 'closed_book':
      return checkClosedBook(check, answer);
    case 'citation':
      return checkCitation(check, answer);
    case 'code':
      return checkCode(check, answer);
  }
}
