/**
 * Token counting. A `Tokenizer` is anything that turns text into token ids; the estimate needs
 * no vocabulary (see `estimateTokenizer`).
 */
import { estimateCount } from '../util/token-estimate.js';

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
export { estimateCount };

export const estimateTokenizer: Tokenizer = {
  name: 'estimate',
  exact: false,
  encode: (text) => Array.from({ length: estimateCount(text) }, (_, i) => i),
  count: (text) => estimateCount(text),
};

/** The estimate calibrated against a server: its count × `tokensPerEstimate` (see client/prompt-calibration.ts). */
export interface ScaledEstimate extends Tokenizer {
  /** Server tokens per estimated token; synthetic text of N tokens is N / this many words. */
  readonly tokensPerEstimate: number;
}

export function scaledEstimate(tokensPerEstimate: number): ScaledEstimate {
  const count = (text: string): number => Math.round(estimateCount(text) * tokensPerEstimate);
  return {
    name: 'estimate (calibrated)',
    exact: false,
    tokensPerEstimate,
    encode: (text) => Array.from({ length: count(text) }, (_, i) => i),
    count,
  };
}

