/**
 * Anthropic's Messages API, /v1/messages (Anthropic, vLLM, gateways). The key goes in
 * `x-api-key` with an `anthropic-version` header, not in Authorization. Streamed as typed SSE
 * events: `message_start` (the message, with `usage.input_tokens`), `content_block_start`, then
 * `content_block_delta` per piece (`delta.type` `text_delta` with `text`, `thinking_delta` with
 * `thinking`, `input_json_delta` for a tool call), `content_block_stop`, `message_delta`
 * (`delta.stop_reason`, `usage.output_tokens`), `message_stop`; `ping` between; an `error` event
 * (`{"type":"error","error":{"type":…,"message":…}}`) on failure. vLLM puts message_start's usage
 * beside the message rather than inside it and sends `data: [DONE]` after message_stop; both are read.
 * Wire format: vllm/entrypoints/anthropic/serving_messages.py (message_stream_converter,
 * messages_full_converter) and protocol.py.
 */
import type { EndpointKind, UnaryAnswer } from './endpoint-kind.js';
import type { UsageCounts } from '../stream-events.js';
import { JsonEventScanner, errorTextOf, isJsonObject, numOrNull, type JsonObject } from '../sse/json-event-scanner.js';

/** The API version sent in `anthropic-version` (the one Anthropic's SDKs send). */
export const ANTHROPIC_VERSION = '2023-06-01';

/** Anthropic's stop reasons in the OpenAI words figures read (vLLM's stop_reason_map, reversed). */
const STOP_REASONS: Readonly<Record<string, string>> = { end_turn: 'stop', stop_sequence: 'stop', max_tokens: 'length', tool_use: 'tool_calls', refusal: 'content_filter' };
const finishOf = (r: unknown): string | null => (typeof r === 'string' ? (STOP_REASONS[r] ?? r) : null);

export class AnthropicScanner extends JsonEventScanner {
  private input: number | null = null;
  private output: number | null = null;

  protected onEvent(type: string, p: JsonObject, now: number): void {
    switch (type) {
      case 'content_block_delta': {
        const d = isJsonObject(p.delta) ? p.delta : {};
        if (d.type === 'text_delta') this.content('answer', typeof d.text === 'string' ? d.text : '', now);
        else if (d.type === 'thinking_delta') this.content('reasoning', typeof d.thinking === 'string' ? d.thinking : '', now);
        else if (d.type === 'input_json_delta' && typeof d.partial_json === 'string' && d.partial_json !== '') this.content('answer', null, now);
        return;
      }
      case 'message_start': {
        const m = isJsonObject(p.message) ? p.message : {};
        this.take(isJsonObject(m.usage) ? m.usage : p.usage);
        return;
      }
      case 'message_delta': {
        const d = isJsonObject(p.delta) ? p.delta : {};
        this.finishReason = finishOf(d.stop_reason) ?? this.finishReason;
        this.take(p.usage);
        return;
      }
      case 'message_stop':
        this.sawDone = true;
        return;
      case 'error':
        this.errorMessage ??= errorTextOf(p.error ?? p);
        return;
      default:
    }
  }

  /** Usage as the events give it: input tokens at message_start, the output count (cumulative) at message_delta. */
  private take(u: unknown): void {
    if (!isJsonObject(u)) return;
    const i = numOrNull(u.input_tokens);
    if (i !== null && i > 0) this.input = i;
    const o = numOrNull(u.output_tokens);
    if (o !== null) this.output = o;
    this.usage = { prompt_tokens: this.input, completion_tokens: this.output } satisfies UsageCounts;
  }
}

/** A whole message: `content[]` blocks of type text (and thinking), `stop_reason`, `usage`. */
export function parseMessage(json: unknown): UnaryAnswer | null {
  if (!isJsonObject(json) || !Array.isArray(json.content)) return null;
  let text = '';
  for (const b of json.content) {
    if (!isJsonObject(b)) continue;
    if (b.type === 'text' && typeof b.text === 'string') text += b.text;
    else if (b.type === 'thinking' && typeof b.thinking === 'string') text += b.thinking;
    else if (b.type === 'tool_use') text += JSON.stringify(b.input ?? {});
  }
  const u = json.usage;
  const usage = isJsonObject(u) ? { prompt_tokens: numOrNull(u.input_tokens), completion_tokens: numOrNull(u.output_tokens) } : null;
  return { text, usage, finishReason: finishOf(json.stop_reason) };
}

export const anthropicKind: EndpointKind = {
  name: 'anthropic',
  path: '/v1/messages',
  generates: true,
  input: 'messages',
  streamEnd: 'message_delta or message_stop',
  headers: { 'anthropic-version': ANTHROPIC_VERSION },
  authHeaders: (apiKey) => ({ 'x-api-key': apiKey }),
  buildBody: (item, opts) => {
    // Messages has no system role inside messages: a system message goes to the top-level `system`.
    const msgs = item.messages ?? [{ role: 'user' as const, content: item.prompt }];
    const system = msgs.filter((m) => m.role === 'system').map((m) => m.content);
    const body: Record<string, unknown> = {
      model: opts.model,
      messages: msgs.filter((m) => m.role !== 'system'),
      // Required by the API; without a length from the workload, a bound like the OpenAI servers' default.
      max_tokens: item.max_tokens ?? 4096,
    };
    if (system.length > 0) body.system = system.join('\n');
    if (opts.ignoreEos) body.ignore_eos = true;
    if (opts.stream) body.stream = true;
    return { ...body, ...opts.extraBody };
  },
  newScanner: (o) => new AnthropicScanner(o),
  parseUnary: parseMessage,
};
