/**
 * Citation correctness for retrieval answers (docs/quality.md §Citation). Definition:
 *  - a citation is a marker `[n]` or `[n, m, …]` in the answer; documents are numbered from 1;
 *  - the claim a marker supports is the sentence it sits in (text split after . ! ? and at line
 *    breaks), markers removed; a marker alone on its sentence supports the sentence before it;
 *  - a cited document supports the claim when the claim and the document share a run of at least
 *    `min_span_words` (default 3; fewer when the claim itself is shorter) consecutive words after
 *    normalizeText (case, punctuation and articles ignored);
 *  - the answer passes when it cites at least once, every cited number is an existing document,
 *    every citation is supported, and every `required` document is cited.
 */
import type { CheckOutcome, QualityCheck } from './check-types.js';
import { normalizedWords } from './normalize.js';
import { correct, wrong } from './outcome.js';

type CitationCheck = Extract<QualityCheck, { kind: 'citation' }>;

export const DEFAULT_MIN_SPAN_WORDS = 3;

/** One claim and the document numbers it cites. */
export interface Citation {
  claim: string[];
  cited: number[];
}

/** Split the answer into sentences and collect the markers of each (see the definition above). */
export function citationsOf(answer: string): Citation[] {
  const out: Citation[] = [];
  let previous: string[] = [];
  for (const sentence of answer.split(/(?<=[.!?])\s+|\n+/)) {
    const cited = [...sentence.matchAll(/\[(\d+(?:\s*,\s*\d+)*)\]/g)].flatMap((m) => m[1]!.split(',').map((n) => Number(n.trim())));
    const words = normalizedWords(sentence.replace(/\[[\d,\s]+\]/g, ' '));
    const claim = words.length > 0 ? words : previous;
    if (cited.length > 0) out.push({ claim, cited });
    if (words.length > 0) previous = words;
  }
  return out;
}

/** True when `doc` contains a run of `k` consecutive words of `claim`. */
export function supports(doc: string[], claim: string[], k: number): boolean {
  const run = Math.min(k, claim.length);
  if (run === 0) return false;
  const docText = ` ${doc.join(' ')} `;
  for (let i = 0; i + run <= claim.length; i++) if (docText.includes(` ${claim.slice(i, i + run).join(' ')} `)) return true;
  return false;
}

export function checkCitation(check: CitationCheck, answer: string): CheckOutcome {
  const citations = citationsOf(answer);
  if (citations.length === 0) return wrong('no [n] citation');
  const docs = check.documents.map((d) => normalizedWords(d));
  const k = check.min_span_words ?? DEFAULT_MIN_SPAN_WORDS;
  const cited = new Set<number>();
  for (const c of citations) {
    for (const n of c.cited) {
      if (n < 1 || n > docs.length) return wrong(`cites [${n}], but there are ${docs.length} documents`);
      if (!supports(docs[n - 1]!, c.claim, k)) return wrong(`document [${n}] does not contain the cited claim "${c.claim.slice(0, 8).join(' ')}"`);
      cited.add(n);
    }
  }
  const missing = (check.required ?? []).filter((n) => !cited.has(n));
  if (missing.length > 0) return wrong(`does not cite required document [${missing[0]}]`);
  return correct(`${cited.size} cited document${cited.size === 1 ? '' : 's'}, all supported`);
}
