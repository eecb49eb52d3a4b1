/**
 * Synthetic prompt text of an exact token length. Text is random words from a vocabulary whose
 * every word is one token (with and without a leading space) for the active tokenizer, so N
 * words = N tokens; with a real tokenizer the count is then checked and corrected, so the
 * result is token-exact. Each call draws fresh words: distinct requests share no prefix beyond
 * what was asked for (not trivially cacheable), like vLLM's random dataset.
 */
import type { Rng } from '../util/rng.js';
import { createRng } from '../util/rng.js';
import type { Tokenizer } from './tokenizer.js';
import { estimateTokenizer, type ScaledEstimate } from './tokenizer.js';
import { WORDS } from './words.js';

export interface TextMaker {
  readonly tokenizer: Tokenizer;
  /** Random text of exactly `n` tokens (no special tokens), starting without a space. */
  text(rng: Rng, n: number): string;
  /** `head + continuation` whose token count is exactly `total`; head is kept verbatim.
   * Pass `headTokens` when head came from this maker (its count is then trusted). */
  extend(rng: Rng, head: string, total: number, headTokens?: number): string;
  /** `n` random single-token words: joined by single spaces they are exactly `n` tokens. */
  words(rng: Rng, n: number): string[];
}

/**
 * `salt` (non-empty) permutes the vocabulary: every random draw stays the same (lengths, the
 * schedule, which draws share a prefix) but lands on other words, so two salts give texts that
 * share nothing a prefix cache could reuse.
 */
export function createTextMaker(tokenizer: Tokenizer = estimateTokenizer, salt: string | null = null): TextMaker {
  // A calibrated estimate: every word counts as `perWord` server tokens on average.
  const perWord = (tokenizer as Partial<ScaledEstimate>).tokensPerEstimate;
  if (perWord !== undefined) return scaledMaker(tokenizer, perWord, salted(WORDS, salt));
  const vocab = salted(singleTokenWords(tokenizer), salt);
  const words = (rng: Rng, n: number): string[] => {
    const out = new Array<string>(Math.max(0, n));
    for (let i = 0; i < out.length; i++) out[i] = vocab[rng.int(0, vocab.length - 1)] as string;
    return out;
  };
  // Words are single tokens and the pre-tokenizer splits before each space, so N words are N
  // tokens; checked once here on sample texts. When it holds, text built only from this maker's
  // words needs no re-count (encoding with a real tokenizer is costly: this keeps next() cheap).
  const trusted = tokenizer === estimateTokenizer || selfCheck(tokenizer, words);
  const extend = (rng: Rng, head: string, total: number, headTokens?: number): string => {
    const own = trusted && (head === '' || headTokens !== undefined);
    const have = head === '' ? 0 : (headTokens ?? tokenizer.count(head));
    if (total <= have) return head;
    let parts = words(rng, total - have);
    let text = join(head, parts);
    if (own) return text;
    // The words are single tokens, so only a merge across the boundary with `head` (or a
    // tokenizer quirk) can make the count differ; adjust until exact.
    for (let guard = 0; guard < 64; guard++) {
      const diff = tokenizer.count(text) - total;
      if (diff === 0 || (diff > 0 && parts.length === 0)) break;
      parts = diff > 0 ? parts.slice(0, Math.max(0, parts.length - diff)) : parts.concat(words(rng, -diff));
      text = join(head, parts);
    }
    return text;
  };
  return { tokenizer, text: (rng, n) => extend(rng, '', n), extend, words };
}

/**
 * Text for a calibrated estimate: N tokens are round(N / perWord) words of the estimate's
 * vocabulary, which the server counts as N tokens on average (the calibration's measurement).
 */
function scaledMaker(tokenizer: Tokenizer, perWord: number, vocab: readonly string[]): TextMaker {
  const words = (rng: Rng, n: number): string[] => {
    const out = new Array<string>(Math.max(0, n));
    for (let i = 0; i < out.length; i++) out[i] = vocab[rng.int(0, vocab.length - 1)] as string;
    return out;
  };
  const wordsFor = (tokens: number): number => Math.max(0, Math.round(tokens / perWord));
  const extend = (rng: Rng, head: string, total: number, headTokens?: number): string => {
    const have = head === '' ? 0 : (headTokens ?? tokenizer.count(head));
    return total <= have ? head : join(head, words(rng, wordsFor(total - have)));
  };
  return { tokenizer, text: (rng, n) => extend(rng, '', n), extend, words: (rng, n) => words(rng, wordsFor(n)) };
}

/**
 * A maker that builds no text (WorkloadOptions.lengthsOnly): every call returns the empty text
 * and draws nothing, so the lengths, drawn from their own random streams, are unchanged.
 */
export function lengthsOnlyMaker(tokenizer: Tokenizer): TextMaker {
  return { tokenizer, text: () => '', extend: (_rng, head) => head, words: () => [] };
}

/** The vocabulary in a salt-seeded order (Fisher–Yates); unchanged without a salt. */
function salted(vocab: readonly string[], salt: string | null): readonly string[] {
  if (!salt) return vocab;
  const out = [...vocab];
  const rng = createRng(`prompt-salt:${salt}`);
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [out[i], out[j]] = [out[j] as string, out[i] as string];
  }
  return out;
}

function selfCheck(tokenizer: Tokenizer, words: (rng: Rng, n: number) => string[]): boolean {
  const rng = createRng('synthetic:self-check');
  for (let i = 0; i < 4; i++) {
    const a = words(rng, 200).join(' ');
    const b = words(rng, 57).join(' ');
    if (tokenizer.count(a) !== 200 || tokenizer.count(`${a} ${b}`) !== 257) return false;
  }
  return true;
}

function join(head: string, parts: string[]): string {
  if (parts.length === 0) return head;
  return head === '' ? parts.join(' ') : `${head} ${parts.join(' ')}`;
}

const cache = new WeakMap<Tokenizer, readonly string[]>();

/** WORDS filtered to those that are one token for `tokenizer`, with and without a leading space. */
export function singleTokenWords(tokenizer: Tokenizer): readonly string[] {
  const hit = cache.get(tokenizer);
  if (hit) return hit;
  const list = tokenizer === estimateTokenizer ? WORDS : WORDS.filter((w) => tokenizer.count(w) === 1 && tokenizer.count(` ${w}`) === 1);
  const vocab = list.length >= 64 ? list : WORDS;
  cache.set(tokenizer, vocab);
  return vocab;
}
