/**
 * The two OpenAI generation APIs, /v1/completions and /v1/chat/completions: request bodies as
 * vLLM's `bench serve` sends them, streams read by the byte-level scanner (stream-scanner.ts,
 * the client's hot path), whole bodies by parseCompleteResponse.
 */
import type { WorkItem } from '../../workload/types.js';
import { parseCompleteResponse } from '../openai-body.js';
import { OpenAIStreamScanner } from '../stream-scanner.js';
import { bearerAuth, type BodyOptions, type EndpointKind } from './endpoint-kind.js';

function generationBody(prompt: Record<string, unknown>, item: WorkItem, opts: BodyOptions): Record<string, unknown> {
  const body: Record<string, unknown> = { model: opts.model, ...prompt };
  if (item.max_tokens !== null) body.max_tokens = item.max_tokens;
  if (opts.ignoreEos) body.ignore_eos = true;
  if (opts.stream) {
    body.stream = true;
    // Exact token counts: ask for usage in the stream (OpenAI, vLLM, SGLang, llama.cpp honour it).
    body.stream_options = { include_usage: true };
  }
  // The user's extra fields win, so any of the above can be overridden (e.g. temperature, stream_options).
  return { ...body, ...opts.extraBody };
}

const newScanner = (o: { keepText: boolean }): OpenAIStreamScanner => new OpenAIStreamScanner(o);

export const completionsKind: EndpointKind = {
  name: 'completions',
  path: '/v1/completions',
  generates: true,
  input: 'prompt',
  authHeaders: bearerAuth,
  buildBody: (item, opts) => generationBody({ prompt: item.prompt }, item, opts),
  newScanner,
  parseUnary: parseCompleteResponse,
};

/**
 * The chat messages with an item's media as parts of its last user message, after the text, as
 * vLLM's `bench serve` sends them (openai-chat): `{type: 'image_url', image_url: {url}}` and
 * `{type: 'input_audio', input_audio: {data, format}}`.
 */
export function mediaMessages(item: WorkItem): unknown[] {
  const messages: unknown[] = [...(item.messages ?? [{ role: 'user', content: item.prompt }])];
  const parts: unknown[] = [];
  for (const m of item.media ?? []) {
    if (m.type === 'image') parts.push({ type: 'image_url', image_url: { url: m.url } });
    else parts.push({ type: 'input_audio', input_audio: { data: m.data, format: m.format } });
  }
  let last = messages.length - 1;
  while (last >= 0 && (messages[last] as { role: string }).role !== 'user') last--;
  if (last < 0) {
    messages.push({ role: 'user', content: parts });
    return messages;
  }
  const u = messages[last] as { role: string; content: string };
  messages[last] = { role: 'user', content: [{ type: 'text', text: u.content }, ...parts] };
  return messages;
}

export const chatKind: EndpointKind = {
  name: 'chat',
  path: '/v1/chat/completions',
  generates: true,
  input: 'messages',
  media: ['image', 'audio'],
  authHeaders: bearerAuth,
  buildBody: (item, opts) => generationBody({ messages: item.media ? mediaMessages(item) : (item.messages ?? [{ role: 'user', content: item.prompt }]) }, item, opts),
  newScanner,
  parseUnary: parseCompleteResponse,
};
