/**
 * POST /tokenize, in the shape of the server the simulator plays. vLLM (and SGLang):
 * `{model?, prompt | messages, add_special_tokens?}` → `{count, max_model_len, tokens, token_strs}`;
 * llama.cpp: `{content, add_special?}` → `{tokens}`. Counts come from the server's own counter
 * (the one its `usage.prompt_tokens` uses), so a client can size prompts to this server.
 * Token ids are stand-ins: only their number means anything.
 */
import type { ServerContext } from './context.js';
import { CHAT_TOKENS_PER_MESSAGE } from '../text.js';
import { BadRequest } from './request-parse.js';

export function tokenizeAnswer(ctx: ServerContext, raw: string): string {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw new BadRequest('request body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new BadRequest('request body must be a JSON object');
  const b = body as Record<string, unknown>;
  if (ctx.dialect === 'llamacpp') {
    // llama.cpp answers a body without `content` with no tokens rather than an error.
    const n = typeof b['content'] === 'string' ? ctx.countTokens(b['content']) : 0;
    return JSON.stringify({ tokens: ids(n) });
  }
  if (b['model'] !== undefined && b['model'] !== null && b['model'] !== ctx.modelName) {
    throw new BadRequest(`The model \`${String(b['model'])}\` does not exist.`, 404, 'NotFoundError', 'model_not_found');
  }
  let n: number;
  if (typeof b['prompt'] === 'string') n = ctx.countTokens(b['prompt']);
  else if (Array.isArray(b['messages'])) {
    n = 0;
    for (const m of b['messages'] as unknown[]) {
      const content = typeof m === 'object' && m !== null ? (m as Record<string, unknown>)['content'] : undefined;
      n += (typeof content === 'string' ? ctx.countTokens(content) : 0) + CHAT_TOKENS_PER_MESSAGE;
    }
  } else throw new BadRequest('either prompt or messages must be given');
  return JSON.stringify({ count: n, max_model_len: ctx.maxModelLen, tokens: ids(n), token_strs: null });
}

function ids(n: number): number[] {
  return Array.from({ length: n }, (_, i) => 1000 + (i % 30000));
}
