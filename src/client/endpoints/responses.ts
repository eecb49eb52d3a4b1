/**
 * The OpenAI Responses API, /v1/responses (OpenAI, vLLM). Streamed as typed SSE events:
 * `response.created`, `response.output_item.added`, `response.content_part.added`, then one
 * `response.output_text.delta` (`delta`: the text) per piece of answer — reasoning models send
 * `response.reasoning_text.delta` (vLLM) or `response.reasoning_summary_text.delta` (OpenAI)
 * first — and `response.completed` (or `response.incomplete`, `response.failed`) whose
 * `response.usage` holds `input_tokens`, `output_tokens` and `output_tokens_details.reasoning_tokens`.
 * No `[DONE]`: the stream is over at the terminal event. Errors: an `error` event.
 * Wire format: vllm/entrypoints/openai/responses/serving.py (ResponseTextDeltaEvent,
 * ResponseReasoningTextDeltaEvent, ResponseCompletedEvent from the openai SDK's types).
 */
import { bearerAuth, type EndpointKind, type UnaryAnswer } from './endpoint-kind.js';
import type { UsageCounts } from '../stream-events.js';
import { JsonEventScanner, errorTextOf, isJsonObject, numOrNull, type JsonObject } from '../sse/json-event-scanner.js';

/** `usage` of a response object, in the record's words. */
function usageOf(u: unknown): UsageCounts | null {
  if (!isJsonObject(u)) return null;
  const details = u.output_tokens_details;
  const reasoning = isJsonObject(details) ? numOrNull(details.reasoning_tokens) : null;
  return { prompt_tokens: numOrNull(u.input_tokens), completion_tokens: numOrNull(u.output_tokens), ...(reasoning !== null && reasoning > 0 ? { reasoning_tokens: reasoning } : {}) };
}

/** A finished response's status as an OpenAI finish reason: `completed` → stop; incomplete for max_output_tokens → length. */
function finishOf(response: JsonObject): string | null {
  if (response.status === 'completed') return 'stop';
  const d = response.incomplete_details;
  const reason = isJsonObject(d) && typeof d.reason === 'string' ? d.reason : null;
  if (response.status === 'incomplete') return reason === 'max_output_tokens' ? 'length' : (reason ?? 'incomplete');
  return typeof response.status === 'string' ? response.status : null;
}

export class ResponsesScanner extends JsonEventScanner {
  protected onEvent(type: string, p: JsonObject, now: number): void {
    const delta = typeof p.delta === 'string' ? p.delta : null;
    switch (type) {
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        this.content('answer', delta ?? '', now);
        return;
      case 'response.function_call_arguments.delta':
        // A tool call's arguments are answer, as chat's tool_calls deltas, but not output text.
        if (delta) this.content('answer', null, now);
        return;
      case 'response.reasoning_text.delta':
      case 'response.reasoning_summary_text.delta':
        this.content('reasoning', delta ?? '', now);
        return;
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed': {
        const r = isJsonObject(p.response) ? p.response : {};
        this.usage = usageOf(r.usage) ?? this.usage;
        this.finishReason = finishOf(r);
        if (type === 'response.failed') this.errorMessage ??= errorTextOf(r.error ?? 'response.failed');
        this.sawDone = true;
        return;
      }
      case 'error':
        this.errorMessage ??= errorTextOf(isJsonObject(p.error) ? p.error : p);
        return;
      default:
    }
  }
}

/** A whole response object: `output[]` items of type message (output_text parts) and reasoning. */
export function parseResponseObject(json: unknown): UnaryAnswer | null {
  if (!isJsonObject(json) || !Array.isArray(json.output)) return null;
  let text = '';
  for (const item of json.output) {
    if (!isJsonObject(item) || !Array.isArray(item.content)) continue;
    for (const part of item.content) {
      if (isJsonObject(part) && typeof part.text === 'string' && (part.type === 'output_text' || part.type === 'reasoning_text')) text += part.text;
    }
  }
  return { text, usage: usageOf(json.usage), finishReason: finishOf(json) };
}

export const responsesKind: EndpointKind = {
  name: 'responses',
  path: '/v1/responses',
  generates: true,
  input: 'messages',
  streamEnd: 'response.completed, response.incomplete or response.failed',
  authHeaders: bearerAuth,
  buildBody: (item, opts) => {
    const body: Record<string, unknown> = { model: opts.model, input: item.messages ?? item.prompt };
    if (item.max_tokens !== null) body.max_output_tokens = item.max_tokens;
    if (opts.ignoreEos) body.ignore_eos = true;
    if (opts.stream) body.stream = true;
    // Nothing kept server-side: a benchmark's responses are never fetched again.
    body.store = false;
    return { ...body, ...opts.extraBody };
  },
  newScanner: (o) => new ResponsesScanner(o),
  parseUnary: parseResponseObject,
};
