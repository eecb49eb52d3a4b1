/**
 * Token counting. A `Tokenizer` is anything that turns text into token ids; the estimate needs
 * no vocabulary (see `estimateTokenizer`).
 */

export interface Tokenizer {
  /** Name for result.json: `estimate`, `llama3`, `cl100k_base`, a path, … */
  readonly name: string;
  /** True when counts are exact for the target model's tokenizer (not an estimate). */
  readonly exact: boolean;
  /** Token ids of `text`, without special tokens (no BOS/EOS). */
  encode(text: string): number[];
  /** Number of tokens in `text` (no special tokens). */
  count(text: string): number;
}

/**
 * The tokenizer-free estimate: split the text the way GPT/Llama-3 pre-tokenizers do (an optional
 * leading space glued to a run of letters, a run of up to 3 digits, or a run of punctuation) and
 * count each letter run as ceil(letters / 10) tokens, each digit or punctuation run as 1.
 * Common English words are one token each in modern BPE vocabularies, so this is exact for
 * synthetic prompts (built from `WORDS`, all ≤ 10 letters) and within ~10–20% for English prose;
 * code and non-Latin scripts are undercounted. Results record `tokenizer: "estimate"`.
 */
export const estimateTokenizer: Tokenizer = {
  name: 'estimate',
  exact: false,
  encode: (text) => Array.from({ length: estimateCount(text) }, (_, i) => i),
  count: (text) => estimateCount(text),
};

const PIECE = / ?\p{L}+| ?\p{N}{1,3}| ?[^\s\p{L}\p{N}]+|\s+/gu;

export function estimateCount(text: string): number {
  let n = 0;
  for (const m of text.matchAll(PIECE)) {
    const piece = m[0];
    const first = piece.charCodeAt(0) === 32 && piece.length > 1 ? 1 : 0;
    if (/^\s+$/u.test(piece)) {
      // Whitespace runs other than the single space before a word (newlines, indentation).
      n += 1;
    } else if (/\p{L}/u.test(piece[first] ?? '')) {
      n += Math.ceil((piece.length - first) / 10);
    } else {
      n += 1;
    }
  }
  return n;
}
