/**
 * Served versus asked prompt lengths: did the prompts arrive as long as the workload asked?
 * A token estimate that does not fit the server's vocabulary (or a --tokenizer that is not the
 * served model's) silently changes the workload: prompts asked as 256 tokens arrived as ~450 on
 * llama.cpp, and TTFT with them. Pure: a function of the records.
 */
import type { RequestRecord } from '../record/record.js';

export interface PromptLengthCheck {
  /** Mean served prompt tokens (usage, minus the server's per-request overhead) per request. */
  served_mean: number;
  /** Mean asked prompt tokens (the client's count) per request. */
  asked_mean: number;
  /** served / asked − 1. */
  deviation: number;
  requests: number;
}

/**
 * Over measured ok requests whose server usage gave prompt_tokens and that are single prompts
 * (a session's later turns carry the server's own replies, which the client cannot size; nor
 * can it size images or audio, so requests that carry them are left out):
 * Σ(served − overhead) / Σ asked. The overhead is what the server adds to a request of one
 * message (BOS, chat template), plus `perMessageTokens` for each further message of a chat
 * request (`prompt_messages`): a system + user prompt carries the template twice. Null when no
 * request qualifies.
 */
export function checkPromptLengths(records: readonly RequestRecord[], overheadTokens: number | null, perMessageTokens: number | null = null): PromptLengthCheck | null {
  let served = 0;
  let asked = 0;
  let n = 0;
  const base = overheadTokens ?? 0;
  const perMessage = perMessageTokens ?? 0;
  for (const r of records) {
    if (r.phase !== 'measure' || r.status !== 'ok' || r.token_source !== 'usage') continue;
    if (r.prompt_tokens === null || !r.client_prompt_tokens || (r.turn ?? 0) > 0) continue;
    // Image and audio tokens are the server's to count: such a prompt has no asked length to match.
    if (r.images !== undefined || r.audio_clips !== undefined) continue;
    served += r.prompt_tokens - base - perMessage * Math.max(0, (r.prompt_messages ?? 1) - 1);
    asked += r.client_prompt_tokens;
    n++;
  }
  if (n === 0 || asked <= 0) return null;
  return { served_mean: served / n, asked_mean: asked / n, deviation: served / asked - 1, requests: n };
}

/** The verdict's reason when served lengths differ from asked by more than `tolerance` (relative) and 2 tokens a request. */
export function promptLengthReason(c: PromptLengthCheck | null, tolerance: number, tokenizer: 'estimate' | 'tokenizer'): string | null {
  if (c === null) return null;
  if (Math.abs(c.deviation) <= tolerance || Math.abs(c.served_mean - c.asked_mean) <= 2) return null;
  const pct = `${c.deviation > 0 ? '+' : ''}${(c.deviation * 100).toFixed(0)}%`;
  const hint = tokenizer === 'tokenizer' ? 'is --tokenizer the served model’s?' : 'give --tokenizer for the served model (or use a server with /tokenize)';
  return `prompts were served as ${c.served_mean.toFixed(0)} tokens on average where ${c.asked_mean.toFixed(0)} were asked (${pct}): the figures describe other prompt lengths than asked; ${hint}`;
}
