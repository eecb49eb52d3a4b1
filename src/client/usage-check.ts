/**
 * Is the server's `usage` possible? A hostile or broken server can report a negative or
 * fractional count, or a prompt length that cannot belong to the prompt sent; such usage is
 * rejected (the record keeps why in `usage_rejected`) and the counts fall back to the tokenizer
 * or the content chunks, as when a server sends no usage (docs/records.md, field usage_rejected).
 */
import type { UsageCounts } from './stream-events.js';

/**
 * How far the served prompt length may lie from the client's count before it cannot be the
 * same prompt: more than FAR × the count + SLACK tokens, or less than the count / FAR − SLACK.
 * Wide on purpose: a wrong tokenizer or a chat template moves it by tens of percent, which the
 * prompt-length check (analysis/prompt-lengths.ts) reports; only an impossible value is refused.
 */
export const PROMPT_FAR_FACTOR = 10;
const PROMPT_SLACK = 256;

/**
 * Null when the usage is believable (or absent); else one line naming the field and the value.
 * `media`: the request carried images or audio, whose tokens the client cannot count, so a served
 * prompt longer than the text's is possible however long.
 */
export function checkUsage(u: UsageCounts | null, clientPromptTokens: number | null, turn: number | null, media = false): string | null {
  if (u === null) return null;
  for (const [field, v] of [
    ['completion_tokens', u.completion_tokens],
    ['prompt_tokens', u.prompt_tokens],
    ['completion_tokens_details.reasoning_tokens', u.reasoning_tokens ?? null],
  ] as const) {
    if (v === null) continue;
    if (v < 0) return `${field} ${v} is negative`;
    if (!Number.isSafeInteger(v)) return `${field} ${v} is not a whole number`;
  }
  if (u.reasoning_tokens !== undefined && u.completion_tokens !== null && u.reasoning_tokens > u.completion_tokens) {
    return `completion_tokens_details.reasoning_tokens ${u.reasoning_tokens} exceeds completion_tokens ${u.completion_tokens}`;
  }
  // A session's later turns carry the server's own replies, which the client did not count.
  if (u.prompt_tokens !== null && clientPromptTokens !== null && clientPromptTokens > 0 && (turn ?? 0) === 0) {
    const p = u.prompt_tokens;
    if ((!media && p > clientPromptTokens * PROMPT_FAR_FACTOR + PROMPT_SLACK) || p < clientPromptTokens / PROMPT_FAR_FACTOR - PROMPT_SLACK) {
      return `prompt_tokens ${p} cannot belong to the prompt sent (${clientPromptTokens} tokens by the client's count)`;
    }
  }
  return null;
}
