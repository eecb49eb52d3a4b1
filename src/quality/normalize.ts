/**
 * Text normalization shared by the checks (docs/quality.md §Normalization): one definition, so the
 * `normalized`, `closed_book` and `citation` checks agree on what "the same words" means.
 */

const ARTICLES = new Set(['a', 'an', 'the']);

/** Curly quotes and apostrophes to their ASCII forms, so phrase lists match typographic answers. */
export function straightenQuotes(text: string): string {
  return text.replace(/[\u2018\u2019\u02bc]/g, "'").replace(/[\u201c\u201d]/g, '"');
}

/**
 * Lower-case, drop punctuation (keeping letters, digits and inner decimal points), drop the
 * articles a/an/the, collapse whitespace. "The  Eiffel-Tower!" → "eiffel tower".
 */
export function normalizeText(text: string): string {
  return normalizedWords(text).join(' ');
}

/** The words of `normalizeText`, in order. */
export function normalizedWords(text: string): string[] {
  const lowered = straightenQuotes(text).toLowerCase().normalize('NFKC');
  // A decimal point between digits is part of a number; other punctuation separates words.
  const spaced = lowered.replace(/(\d)\.(\d)/g, '$1\uE000$2').replace(/[^\p{L}\p{N}\uE000]+/gu, ' ');
  return spaced
    .split(' ')
    .map((w) => w.replace(/\uE000/g, '.'))
    .filter((w) => w !== '' && !ARTICLES.has(w));
}

/** True when `needle`'s normalized words occur as a consecutive run in `haystack`'s. */
export function containsWords(haystack: string[], needle: string[]): boolean {
  if (needle.length === 0) return false;
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/** Shorten a text for a one-line reason: first `max` characters, newlines shown as spaces. */
export function preview(text: string, max = 40): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
