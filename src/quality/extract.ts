/**
 * Pulling the graded part out of a free-form answer (docs/quality.md): the chosen letter, the final
 * number, a JSON value, a code block. Pure functions; each returns null when nothing is found.
 */

/** The letters a multiple-choice question offers: A.. for `count` choices, A–J when unknown. */
export function choiceLetters(count?: number): string {
  const n = count === undefined ? 10 : Math.min(Math.max(count, 1), 26);
  return 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.slice(0, n);
}

/**
 * The chosen letter, tried in this order (the first that matches wins):
 *  1. an explicit statement: "Answer: B", "the answer is (B)", "Correct option: B" (last one);
 *  2. the whole answer is the letter: "B", "b", "(B)", "B.";
 *  3. the answer starts with a labelled letter: "B. Paris", "(B) Paris", "B) Paris", "B: Paris";
 *  4. the last parenthesised letter anywhere: "... so (B)";
 *  5. with `choices`: the answer equals exactly one choice's text (case-insensitive).
 * Only upper-case letters count in 1, 3 and 4, so an article "a" is not read as a choice.
 */
export function extractChoice(answer: string, letters: string, choices?: string[]): string | null {
  const set = `[${letters}]`;
  const stated = [...answer.matchAll(new RegExp(`\\b(?:answer|option|choice)(?:\\s+is)?\\s*[:=-]?\\s*\\(?([a-z])\\)?(?![\\p{L}\\p{N}])`, 'giu'))];
  const lastStated = stated.filter((m) => letters.includes(m[1]!)).at(-1)?.[1];
  if (lastStated !== undefined) return lastStated;
  const whole = /^\s*\(?([A-Za-z])\)?[.):]?\s*$/.exec(answer);
  if (whole && letters.includes(whole[1]!.toUpperCase())) return whole[1]!.toUpperCase();
  const leading = new RegExp(`^\\s*\\(?(${set})[.):]\\s`, 'u').exec(answer);
  if (leading) return leading[1]!;
  const paren = [...answer.matchAll(new RegExp(`\\((${set})\\)`, 'gu'))].at(-1);
  if (paren) return paren[1]!;
  if (choices) {
    const text = answer.trim().toLowerCase().replace(/[.!]$/, '');
    const hits = choices.flatMap((c, i) => (c.trim().toLowerCase() === text ? [letters[i]!] : []));
    if (hits.length === 1) return hits[0]!;
  }
  return null;
}

/**
 * The last number in the answer: "-1,234.5 km" → -1234.5, "3.0e8 m/s" → 3e8, "42%" → 42.
 * Thousands separators are commas between groups of exactly three digits; units and other words
 * around the number are ignored.
 */
export function extractLastNumber(answer: string): number | null {
  const re = /-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?|-?\.\d+/g;
  const all = [...answer.matchAll(re)];
  const last = all.at(-1);
  if (!last) return null;
  const value = Number(last[0].replace(/,/g, ''));
  return Number.isFinite(value) ? value : null;
}

/** The contents of every ``` fenced block, with the info string (language) of each. */
export function fencedBlocks(answer: string): { lang: string; body: string }[] {
  const out: { lang: string; body: string }[] = [];
  for (const m of answer.matchAll(/```[ \t]*([\w+-]*)[^\n]*\n([\s\S]*?)```/g)) out.push({ lang: m[1]!.toLowerCase(), body: m[2]! });
  return out;
}

/** The JSON value the answer carries: the whole answer if it parses, else the first fenced block that does. */
export function extractJson(answer: string): { value: unknown } | null {
  const candidates = [answer.trim(), ...fencedBlocks(answer).map((b) => b.body.trim())];
  for (const text of candidates) {
    if (text === '') continue;
    try {
      return { value: JSON.parse(text) as unknown };
    } catch {
      // not this one
    }
  }
  return null;
}

/** The code the answer carries: the first js/javascript (or unlabelled) fenced block, else the whole answer. */
export function extractCode(answer: string): string {
  const blocks = fencedBlocks(answer);
  const js = blocks.find((b) => ['js', 'javascript', 'mjs', 'cjs', 'node'].includes(b.lang)) ?? blocks.find((b) => b.lang === '') ?? blocks[0];
  return js ? js.body : answer;
}
