/**
 * The simulator's event-typed stream formats: the OpenAI Responses API and Anthropic Messages,
 * written as vLLM's servers write them (vllm/entrypoints/openai/responses/serving.py,
 * vllm/entrypoints/anthropic/serving_messages.py), Anthropic's message_start with its usage
 * inside the message as Anthropic's own API sends it. One instance per response: each keeps its
 * sequence numbers and the text so far (the `done` events repeat it). Words arrive escaped for a
 * JSON string (sim-stream.ts), so they are put in as they are.
 */
import type { Dialect, LlamaTimings, StreamWire, Usage } from './wire.js';

const sse = (event: string, data: string): string => `event: ${event}\ndata: ${data}\n\n`;

/** Finish reasons of the OpenAI APIs in Anthropic's words (vLLM's stop_reason_map). */
const STOP_REASON: Readonly<Record<string, string>> = { stop: 'end_turn', length: 'max_tokens' };

export class ResponsesWire implements StreamWire {
  readonly dialect: Dialect = 'vllm';
  readonly ascii: boolean;
  private seq = 0;
  private text = '';
  private thought = '';
  /** Output items so far: a reasoning item (when reasoning was streamed) comes before the message. */
  private item = -1;
  private inReasoning = false;
  private readonly base: string;

  constructor(
    private readonly id: string,
    private readonly created: number,
    private readonly model: string,
  ) {
    this.base = `"id":"${id}","object":"response","created_at":${created},"model":${JSON.stringify(model)}`;
    // eslint-disable-next-line no-control-regex
    this.ascii = /^[\x00-\x7f]*$/.test(this.base);
  }

  private ev(type: string, rest: string): string {
    return sse(type, `{"type":"${type}","sequence_number":${this.seq++},${rest}}`);
  }

  private response(status: string, extra: string): string {
    return `{${this.base},"status":"${status}"${extra}}`;
  }

  head(): string {
    const r = this.response('in_progress', ',"output":[],"usage":null');
    return this.ev('response.created', `"response":${r}`) + this.ev('response.in_progress', `"response":${r}`);
  }

  private openItem(reasoning: boolean): string {
    this.item++;
    this.inReasoning = reasoning;
    const itemId = `${reasoning ? 'rs' : 'msg'}_${this.id}_${this.item}`;
    if (reasoning) return this.ev('response.output_item.added', `"output_index":${this.item},"item":{"id":"${itemId}","type":"reasoning","summary":[],"content":[],"status":"in_progress"}`);
    return (
      this.ev('response.output_item.added', `"output_index":${this.item},"item":{"id":"${itemId}","type":"message","role":"assistant","status":"in_progress","content":[]}`) +
      this.ev('response.content_part.added', `"item_id":"${itemId}","output_index":${this.item},"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}`)
    );
  }

  private closeItem(): string {
    if (this.item < 0) return '';
    const i = this.item;
    if (this.inReasoning) {
      const itemId = `rs_${this.id}_${i}`;
      return (
        this.ev('response.reasoning_text.done', `"item_id":"${itemId}","output_index":${i},"content_index":0,"text":"${this.thought}"`) +
        this.ev('response.output_item.done', `"output_index":${i},"item":${this.reasoningItem(itemId)}`)
      );
    }
    const itemId = `msg_${this.id}_${i}`;
    return (
      this.ev('response.output_text.done', `"item_id":"${itemId}","output_index":${i},"content_index":0,"text":"${this.text}","logprobs":[]`) +
      this.ev('response.content_part.done', `"item_id":"${itemId}","output_index":${i},"content_index":0,"part":{"type":"output_text","text":"${this.text}","annotations":[]}`) +
      this.ev('response.output_item.done', `"output_index":${i},"item":${this.messageItem(itemId)}`)
    );
  }

  private reasoningItem(itemId: string): string {
    return `{"id":"${itemId}","type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":"${this.thought}"}],"status":"completed"}`;
  }
  private messageItem(itemId: string): string {
    return `{"id":"${itemId}","type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":"${this.text}","annotations":[]}]}`;
  }

  token(word: string, _finish: string | null, reasoning = false): string {
    let out = '';
    if (this.item < 0 || this.inReasoning !== reasoning) out += this.closeItem() + this.openItem(reasoning);
    const i = this.item;
    if (reasoning) {
      this.thought += word;
      return out + this.ev('response.reasoning_text.delta', `"item_id":"rs_${this.id}_${i}","output_index":${i},"content_index":0,"delta":"${word}"`);
    }
    this.text += word;
    return out + this.ev('response.output_text.delta', `"item_id":"msg_${this.id}_${i}","output_index":${i},"content_index":0,"delta":"${word}","logprobs":[]`);
  }

  private usage(u: Usage): string {
    const reasoning = u.completion_tokens_details?.reasoning_tokens ?? 0;
    return `{"input_tokens":${u.prompt_tokens},"input_tokens_details":{"cached_tokens":0},"output_tokens":${u.completion_tokens},"output_tokens_details":{"reasoning_tokens":${reasoning}},"total_tokens":${u.total_tokens}}`;
  }

  private final(finish: string, usage: Usage | null): string {
    const outputs: string[] = [];
    for (let i = 0; i <= this.item; i++) {
      // Items alternate only once here (reasoning, then the answer).
      const reasoningFirst = this.thought !== '' && i === 0;
      outputs.push(reasoningFirst ? this.reasoningItem(`rs_${this.id}_${i}`) : this.messageItem(`msg_${this.id}_${i}`));
    }
    const status = finish === 'length' ? 'incomplete' : 'completed';
    const details = finish === 'length' ? ',"incomplete_details":{"reason":"max_output_tokens"}' : ',"incomplete_details":null';
    return this.response(status, `${details},"output":[${outputs.join(',')}],"usage":${usage ? this.usage(usage) : 'null'}`);
  }

  tail(finish: string, usage: Usage | null, _timings: LlamaTimings | null): string {
    const type = finish === 'length' ? 'response.incomplete' : 'response.completed';
    // The Responses API always reports usage at the end; include_usage is a Chat Completions option.
    return this.closeItem() + this.ev(type, `"response":${this.final(finish, usage)}`);
  }

  full(text: string, finish: string, usage: Usage, _timings: LlamaTimings | null, reasoning = ''): string {
    this.text = jsonBody(text);
    this.thought = jsonBody(reasoning);
    this.item = reasoning === '' ? 0 : 1;
    return this.final(finish, usage);
  }

  errorTail(message: string, _type: string, code: number): string {
    return this.ev('error', `"code":"${code}","message":${JSON.stringify(message)},"param":null`);
  }
}

export class MessagesWire implements StreamWire {
  readonly dialect: Dialect = 'vllm';
  readonly ascii: boolean;
  private block = -1;
  private inThinking = false;
  private readonly meta: string;

  constructor(
    private readonly id: string,
    private readonly model: string,
    private readonly promptTokens: number,
  ) {
    this.meta = `"id":"${id}","type":"message","role":"assistant","model":${JSON.stringify(model)}`;
    // eslint-disable-next-line no-control-regex
    this.ascii = /^[\x00-\x7f]*$/.test(this.meta);
  }

  head(): string {
    return (
      sse('message_start', `{"type":"message_start","message":{${this.meta},"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":${this.promptTokens},"output_tokens":0}}}`) +
      sse('ping', '{"type":"ping"}')
    );
  }

  private stopBlock(): string {
    return this.block < 0 ? '' : sse('content_block_stop', `{"type":"content_block_stop","index":${this.block}}`);
  }

  token(word: string, _finish: string | null, reasoning = false): string {
    let out = '';
    if (this.block < 0 || this.inThinking !== reasoning) {
      out += this.stopBlock();
      this.block++;
      this.inThinking = reasoning;
      const cb = reasoning ? '{"type":"thinking","thinking":""}' : '{"type":"text","text":""}';
      out += sse('content_block_start', `{"type":"content_block_start","index":${this.block},"content_block":${cb}}`);
    }
    const delta = reasoning ? `{"type":"thinking_delta","thinking":"${word}"}` : `{"type":"text_delta","text":"${word}"}`;
    return out + sse('content_block_delta', `{"type":"content_block_delta","index":${this.block},"delta":${delta}}`);
  }

  tail(finish: string, usage: Usage | null, _timings: LlamaTimings | null): string {
    const out = usage?.completion_tokens ?? 0;
    return (
      this.stopBlock() +
      sse('message_delta', `{"type":"message_delta","delta":{"stop_reason":"${STOP_REASON[finish] ?? finish}","stop_sequence":null},"usage":{"output_tokens":${out}}}`) +
      sse('message_stop', '{"type":"message_stop"}')
    );
  }

  full(text: string, finish: string, usage: Usage, _timings: LlamaTimings | null, reasoning = ''): string {
    const content: unknown[] = [];
    if (reasoning !== '') content.push({ type: 'thinking', thinking: reasoning, signature: '' });
    content.push({ type: 'text', text });
    return JSON.stringify({
      id: this.id,
      type: 'message',
      role: 'assistant',
      model: this.model,
      content,
      stop_reason: STOP_REASON[finish] ?? finish,
      stop_sequence: null,
      usage: { input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens },
    });
  }

  errorTail(message: string, _type: string, code: number): string {
    const type = code === 529 ? 'overloaded_error' : 'api_error';
    return sse('error', `{"type":"error","error":{"type":"${type}","message":${JSON.stringify(message)}}}`);
  }
}

/** A decoded text as the body of a JSON string (what the streamed words already are). */
function jsonBody(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}
