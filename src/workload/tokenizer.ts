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
 * count each piece:
 * - Latin letters: ⌈letters / 10⌉ (common English words are one token in modern vocabularies);
 * - Chinese, Japanese, Korean: 0.7 token per character, rounded up per run;
 * - other scripts (Cyrillic, Greek, Arabic, …): ⌈letters / 5⌉;
 * - a digit run, a punctuation run, a whitespace run other than a word's leading space: 1.
 * Exact for synthetic prompts (built from `WORDS`, all ≤ 10 letters); accuracy on real text is
 * measured in test/workload/tokenizer.test.ts and docs/workloads.md.
 */
export const estimateTokenizer: Tokenizer = {
  name: 'estimate',
  exact: false,
  encode: (text) => Array.from({ length: estimateCount(text) }, (_, i) => i),
  count: (text) => estimateCount(text),
};

const PIECE = / ?\p{L}+| ?\p{N}{1,3}| ?[^\s\p{L}\p{N}]+|\s+/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const NON_LATIN = /[^\p{Script=Latin}]/u;

export function estimateCount(text: string): number {
  let n = 0;
  for (const m of text.matchAll(PIECE)) {
    const piece = m[0];
    const body = piece.length > 1 && piece.charCodeAt(0) === 32 ? piece.slice(1) : piece;
    const c = body.codePointAt(0) ?? 0;
    if (body.length === 0 || /\s/u.test(body[0] as string)) n += 1;
    else if (!/\p{L}/u.test(String.fromCodePoint(c))) n += 1;
    else if (CJK.test(body)) n += Math.ceil([...body].length * 0.7);
    else if (NON_LATIN.test(body)) n += Math.ceil([...body].length / 5);
    else n += Math.ceil(body.length / 10);
  }
  return n;
}
