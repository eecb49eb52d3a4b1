/**
 * The simulator's reasoning mode: a thinking model's response starts with reasoning tokens,
 * streamed as `delta.reasoning_content` (or `delta.reasoning`) events before the answer's
 * `delta.content`, and counted in usage.completion_tokens_details.reasoning_tokens. Timing is
 * unchanged: a reasoning token costs what any output token costs.
 */

export type ReasoningField = 'reasoning_content' | 'reasoning';

export interface ReasoningOptions {
  /** Reasoning tokens at the start of every response… */
  tokens?: number;
  /** …or this share of its output length (rounded); wins over `tokens`. */
  fraction?: number;
  /** Delta field name (default reasoning_content). */
  field?: ReasoningField;
}

/** Reasoning tokens of a response of `outputTokens` tokens: never more than the output itself. */
export function reasoningTokensOf(r: ReasoningOptions | null | undefined, outputTokens: number): number {
  if (!r) return 0;
  const n = r.fraction !== undefined ? Math.round(r.fraction * outputTokens) : (r.tokens ?? 0);
  return Math.max(0, Math.min(n, outputTokens));
}
