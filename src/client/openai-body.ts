/**
 * The non-streaming responses and error bodies of the OpenAI-compatible APIs
 * (/v1/completions and /v1/chat/completions); their request bodies are the endpoint kinds'
 * (endpoints/openai.ts).
 */
import type { UsageCounts } from './stream-events.js';

export interface CompleteResponse {
  text: string;
  usage: UsageCounts | null;
  finishReason: string | null;
}

/** Reads a non-streaming response body; returns null when it is not the expected JSON shape. */
export function parseCompleteResponse(json: unknown): CompleteResponse | null {
  if (typeof json !== 'object' || json === null) return null;
  const obj = json as { choices?: unknown; usage?: unknown };
  if (!Array.isArray(obj.choices)) return null;
  let text = '';
  let finishReason: string | null = null;
  for (const c of obj.choices as Array<Record<string, unknown>>) {
    if (typeof c.text === 'string') text += c.text;
    const msg = c.message as Record<string, unknown> | undefined;
    if (msg) {
      for (const key of ['reasoning_content', 'reasoning', 'content'] as const) {
        if (typeof msg[key] === 'string') text += msg[key];
      }
      if (Array.isArray(msg.tool_calls) && msg.tool_calls.length > 0) text += JSON.stringify(msg.tool_calls);
    }
    if (typeof c.finish_reason === 'string') finishReason = c.finish_reason;
  }
  const u = obj.usage as Record<string, unknown> | null | undefined;
  const usage =
    u && typeof u === 'object'
      ? {
          prompt_tokens: typeof u.prompt_tokens === 'number' ? u.prompt_tokens : null,
          completion_tokens: typeof u.completion_tokens === 'number' ? u.completion_tokens : null,
          ...reasoningTokensOf(u.completion_tokens_details),
        }
      : null;
  return { text, usage, finishReason };
}

function reasoningTokensOf(details: unknown): { reasoning_tokens?: number } {
  if (typeof details !== 'object' || details === null) return {};
  const n = (details as Record<string, unknown>).reasoning_tokens;
  return typeof n === 'number' ? { reasoning_tokens: n } : {};
}

/** The message of an OpenAI-style error body (`{"error":{"message":...}}`, `{"message":...}`, or text). */
export function errorMessageOf(bodyText: string): string {
  let message = bodyText;
  try {
    const json = JSON.parse(bodyText) as Record<string, unknown>;
    const err = json.error;
    if (typeof err === 'string') message = err;
    else if (err && typeof err === 'object' && typeof (err as Record<string, unknown>).message === 'string') {
      message = (err as Record<string, string>).message!;
    } else if (typeof json.message === 'string') message = json.message;
    else if (typeof json.detail === 'string') message = json.detail;
  } catch {
    // not JSON: keep the text
  }
  message = message.replace(/\s+/g, ' ').trim();
  return message.length > 200 ? `${message.slice(0, 197)}...` : message;
}
