/**
 * The phrase lists behind refusal and abstention detection (docs/quality.md §Refusal, §Closed book).
 * Matching is on the lower-cased answer with straightened quotes, as a plain substring. The lists
 * are deliberately short and conservative: a phrase that a helpful answer commonly contains
 * ("sorry" alone, "however") is not on them.
 */
import { straightenQuotes } from './normalize.js';

/** An answer containing one of these declines the request. */
export const REFUSAL_PHRASES: readonly string[] = [
  "i can't help",
  'i cannot help',
  "i can't assist",
  'i cannot assist',
  "i can't provide",
  'i cannot provide',
  "i can't comply",
  'i cannot comply',
  "i won't help",
  "i won't provide",
  'i will not help',
  'i will not provide',
  "i'm sorry, but",
  'i am sorry, but',
  "i'm unable to",
  'i am unable to',
  "i'm not able to",
  'i am not able to',
  'i must decline',
  "i can't do that",
  'i cannot do that',
];

/** An answer containing one of these says it does not know (closed-book abstention). */
export const ABSTENTION_PHRASES: readonly string[] = [
  "i don't know",
  'i do not know',
  "i'm not sure",
  'i am not sure',
  'unknown',
  'cannot be determined',
  "can't be determined",
  'cannot be known',
  'not known',
  'no one knows',
  'nobody knows',
  'not enough information',
  'no reliable information',
  'no record of',
  'impossible to know',
  'there is no way to know',
  'unanswerable',
];

function containsPhrase(answer: string, phrases: readonly string[]): string | null {
  const text = straightenQuotes(answer).toLowerCase().replace(/\s+/g, ' ');
  return phrases.find((p) => text.includes(p)) ?? null;
}

/** The refusal phrase the answer contains, or null. */
export function refusalPhrase(answer: string): string | null {
  return containsPhrase(answer, REFUSAL_PHRASES);
}

/** The abstention (or refusal) phrase the answer contains, or null: declining to answer is abstaining. */
export function abstentionPhrase(answer: string): string | null {
  return containsPhrase(answer, ABSTENTION_PHRASES) ?? containsPhrase(answer, REFUSAL_PHRASES);
}
