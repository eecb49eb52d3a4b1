/**
 * The text checks: exact, normalized, regex, contains, choice, numeric, max_length
 * (docs/quality.md §Check kinds). Each takes a non-empty answer; evaluate.ts handles empty ones.
 */
import type { CheckOutcome, QualityCheck } from './check-types.js';
import { choiceLetters, extractChoice, extractLastNumber } from './extract.js';
import { normalizeText, preview } from './normalize.js';
import { correct, verdict, wrong } from './outcome.js';

type Of<K extends QualityCheck['kind']> = Extract<QualityCheck, { kind: K }>;

/** Equal after trimming surrounding whitespace; case and inner spacing matter. */
export function checkExact(check: Of<'exact'>, answer: string): CheckOutcome {
  const got = answer.trim();
  return got === check.expected.trim() ? correct('exact match') : wrong(`expected "${preview(check.expected)}", got "${preview(got)}"`);
}

/** Equal to one of the expected texts after normalizeText (case, punctuation, articles, spacing). */
export function checkNormalized(check: Of<'normalized'>, answer: string): CheckOutcome {
  const expected = Array.isArray(check.expected) ? check.expected : [check.expected];
  const got = normalizeText(answer);
  const hit = expected.find((e) => normalizeText(e) === got);
  return hit !== undefined ? correct(`matches "${preview(hit)}"`) : wrong(`expected "${preview(expected[0] ?? '')}", got "${preview(answer)}"`);
}

/** The pattern matches somewhere in the answer (anchor it with ^…$ to match the whole answer). */
export function checkRegex(check: Of<'regex'>, answer: string): CheckOutcome {
  const ok = new RegExp(check.pattern, check.flags).test(answer);
  return verdict(ok, ok ? `matches /${preview(check.pattern)}/` : `does not match /${preview(check.pattern)}/`);
}

/** Every (or, with any: true, at least one) expected string occurs, case-insensitively, spacing collapsed. */
export function checkContains(check: Of<'contains'>, answer: string): CheckOutcome {
  const fold = (s: string): string => s.toLowerCase().replace(/\s+/g, ' ');
  const text = fold(answer);
  const missing = check.expected.filter((e) => !text.includes(fold(e)));
  const found = check.expected.length - missing.length;
  if (check.any === true) return verdict(found > 0, found > 0 ? `contains ${found} of ${check.expected.length}` : `contains none of ${check.expected.length} expected strings`);
  return missing.length === 0 ? correct(`contains all ${check.expected.length}`) : wrong(`missing "${preview(missing[0]!)}"`);
}

/** The extracted letter (extract.ts: extractChoice) equals the expected one. */
export function checkChoice(check: Of<'choice'>, answer: string): CheckOutcome {
  const letter = extractChoice(answer, choiceLetters(check.choices?.length), check.choices);
  if (letter === null) return wrong(`no choice letter found in "${preview(answer)}"`);
  return letter === check.expected ? correct(`chose ${letter}`) : wrong(`chose ${letter}, expected ${check.expected}`);
}

/**
 * |got − expected| ≤ max(tolerance, relative·|expected|); with neither set, a rounding slack of
 * 1e-9·max(1, |expected|) so 0.1+0.2 equals 0.3.
 */
export function checkNumeric(check: Of<'numeric'>, answer: string): CheckOutcome {
  const got = extractLastNumber(answer);
  if (got === null) return wrong(`no number in "${preview(answer)}"`);
  const slack = Math.max(check.tolerance ?? 0, (check.relative ?? 0) * Math.abs(check.expected), 1e-9 * Math.max(1, Math.abs(check.expected)));
  const ok = Math.abs(got - check.expected) <= slack;
  // The slack is a product of floats (0.01 × 5.6e-6 = 5.6000000000000005e-8): the reason shows it
  // to 3 significant digits, which is all a tolerance means.
  const shownSlack = Number(slack.toPrecision(3));
  return ok ? correct(`${got} within ${shownSlack} of ${check.expected}`) : wrong(`got ${got}, expected ${check.expected} (±${shownSlack})`);
}

/** At most max_chars characters (code points) and max_words whitespace-separated words. */
export function checkMaxLength(check: Of<'max_length'>, answer: string): CheckOutcome {
  const chars = [...answer].length;
  const words = answer.split(/\s+/).filter((w) => w !== '').length;
  if (check.max_chars !== undefined && chars > check.max_chars) return wrong(`${chars} chars > ${check.max_chars}`);
  if (check.max_words !== undefined && words > check.max_words) return wrong(`${words} words > ${check.max_words}`);
  return correct(`${chars} chars, ${words} words`);
}
