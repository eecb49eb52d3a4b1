/**
 * Tokenizer-free text helpers of the simulator: prompt token estimates, the words it
 * "generates", and a small seeded RNG. No real tokenizer is needed: the simulator only has
 * to be self-consistent (its `usage` is the truth the client is checked against).
 */
import { estimateCount } from '../util/token-estimate.js';

/**
 * Prompt tokens of a string: the project's tokenizer-free estimate (src/util/token-estimate.ts),
 * the same one the client uses without --tokenizer, so the simulator's usage agrees with the
 * client's count. A real tokenizer can be plugged in with SimServerOptions.countTokens.
 */
export function estimateTokens(text: string): number {
  return estimateCount(text);
}

/**
 * Chat prompt tokens: Σ estimateTokens(content) + 4 per message (role header and separators,
 * roughly what Llama 3's chat template adds: `<|start_header_id|>role<|end_header_id|>\n\n … <|eot_id|>`).
 */
export const CHAT_TOKENS_PER_MESSAGE = 4;

/** The words output tokens are drawn from; each is one token and carries its leading space. */
export const OUTPUT_WORDS: readonly string[] = (
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut ' +
  'labore et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris ' +
  'nisi aliquip ex ea commodo consequat duis aute irure in reprehenderit voluptate velit esse ' +
  'cillum fugiat nulla pariatur excepteur sint occaecat cupidatat non proident sunt culpa qui ' +
  'officia deserunt mollit anim id est laborum'
)
  .split(' ')
  .map((w) => ' ' + w);

/** The k-th output word of a request whose word seed is `seed` (deterministic, no allocation). */
export function outputWord(seed: number, k: number): string {
  return OUTPUT_WORDS[(seed + k * 7) % OUTPUT_WORDS.length] as string;
}

/** mulberry32: a tiny seeded PRNG returning floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Output length when the request does not ask for `ignore_eos`: the model "emits EOS" after a
 * natural length drawn from a geometric distribution with mean `meanTokens`
 * (P(stop after each token) = 1 / meanTokens), capped by max_tokens. With `ignore_eos`,
 * exactly max_tokens.
 */
export function naturalLength(rand: () => number, meanTokens: number, maxTokens: number): number {
  const p = 1 / Math.max(1, meanTokens);
  const u = rand();
  // Inverse CDF of the geometric distribution on {1, 2, …}: ⌈ln(1−u) / ln(1−p)⌉.
  const n = p >= 1 ? 1 : Math.ceil(Math.log(1 - u) / Math.log(1 - p));
  return Math.max(1, Math.min(maxTokens, n));
}
