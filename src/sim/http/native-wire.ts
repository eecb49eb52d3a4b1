/**
 * The simulator's native engine stream formats, written as the engines write them (sources in
 * client/endpoints/native.ts and docs/endpoints.md):
 *
 * - TGI `/generate_stream`: `data:{"index","token":{…},"generated_text":null,"details":null}` per
 *   token (axum's SSE, no space after `data:`), the last token's event carrying `generated_text`
 *   and `details` (finish_reason `eos_token` or `length`, generated_tokens, input_length). The
 *   EOS itself is not sent as a special token here: the last generated word carries the details.
 *   `/generate` (unary): `{"generated_text","details"}`.
 * - SGLang `/generate`: `data: {"text":<text so far>,"output_ids":[…],"meta_info":{…}}` per token,
 *   finish_reason null until the last, then `data: [DONE]`; unary: `{"text","meta_info"}`.
 * - Triton `generate_stream` (TensorRT-LLM ensemble): `data: {"model_name","model_version",
 *   "sequence_end","sequence_id","sequence_start","text_output":<new text>}` per token, nothing
 *   after the last; unary `/generate`: `{"model_name","model_version","text_output"}`.
 *
 * Words arrive escaped for a JSON string (sim-stream.ts) and are put in as they are.
 */
import type { Dialect, LlamaTimings, StreamWire, Usage } from './wire.js';

// eslint-disable-next-line no-control-regex
const isAscii = (s: string): boolean => /^[\x00-\x7f]*$/.test(s);

/** A decoded text as the body of a JSON string (what the streamed words already are). */
const jsonBody = (text: string): string => JSON.stringify(text).slice(1, -1);

/** Token ids of the simulator's words: any stable number will do. */
const tokenId = (k: number): number => 1000 + (k % 30000);

export class TgiWire implements StreamWire {
  readonly dialect: Dialect = 'vllm';
  readonly ascii = true;
  private k = 0;
  private text = '';

  constructor(private readonly promptTokens: number) {}

  head(): string {
    return '';
  }

  private details(finish: string, generated: number): string {
    return `{"finish_reason":"${finish === 'length' ? 'length' : 'eos_token'}","generated_tokens":${generated},"seed":null,"input_length":${this.promptTokens}}`;
  }

  token(word: string, finish: string | null): string {
    const i = this.k++;
    this.text += word;
    const end = finish === null ? '"generated_text":null,"details":null' : `"generated_text":"${this.text}","details":${this.details(finish, this.k)}`;
    return `data:{"index":${i},"token":{"id":${tokenId(i)},"text":"${word}","logprob":-0.5,"special":false},${end},"top_tokens":null}\n\n`;
  }

  tail(): string {
    return '';
  }

  full(text: string, finish: string, usage: Usage, _timings: LlamaTimings | null, reasoning = ''): string {
    return `{"generated_text":${JSON.stringify(reasoning + text)},"details":${this.details(finish, usage.completion_tokens)}}`;
  }

  errorTail(message: string): string {
    return `data:${JSON.stringify({ error: message, error_type: 'generation' })}\n\n`;
  }
}

export class SglangWire implements StreamWire {
  readonly dialect: Dialect = 'vllm';
  readonly ascii = true;
  private k = 0;
  private text = '';
  private ids = '';

  constructor(
    private readonly id: string,
    private readonly promptTokens: number,
  ) {}

  head(): string {
    return '';
  }

  private meta(finish: string | null, completion: number): string {
    const f = finish === null ? 'null' : finish === 'length' ? `{"type":"length","length":${completion}}` : '{"type":"stop","matched":2}';
    return `{"id":"${this.id}","finish_reason":${f},"prompt_tokens":${this.promptTokens},"completion_tokens":${completion},"cached_tokens":0}`;
  }

  token(word: string, finish: string | null): string {
    const i = this.k++;
    this.text += word;
    this.ids += (i === 0 ? '' : ',') + tokenId(i);
    return `data: {"text":"${this.text}","output_ids":[${this.ids}],"meta_info":${this.meta(finish, this.k)},"index":0}\n\n`;
  }

  tail(): string {
    return 'data: [DONE]\n\n';
  }

  full(text: string, finish: string, usage: Usage, _timings: LlamaTimings | null, reasoning = ''): string {
    return `{"text":${JSON.stringify(reasoning + text)},"meta_info":${this.meta(finish, usage.completion_tokens)}}`;
  }

  errorTail(message: string): string {
    return `data: ${JSON.stringify({ error: { message } })}\n\ndata: [DONE]\n\n`;
  }
}

export class TritonWire implements StreamWire {
  readonly dialect: Dialect = 'vllm';
  readonly ascii: boolean;
  private readonly pre: string;
  private readonly base: string;

  constructor(model: string) {
    this.base = `"model_name":${JSON.stringify(model)},"model_version":"1"`;
    this.pre = `data: {${this.base},"sequence_end":false,"sequence_id":0,"sequence_start":false,"text_output":"`;
    this.ascii = isAscii(this.pre);
  }

  head(): string {
    return '';
  }

  token(word: string): string {
    return `${this.pre}${word}"}\n\n`;
  }

  tail(): string {
    return '';
  }

  full(text: string, _finish: string, _usage: Usage, _timings: LlamaTimings | null, reasoning = ''): string {
    return `{${this.base},"text_output":"${jsonBody(reasoning + text)}"}`;
  }

  errorTail(message: string): string {
    return `data: ${JSON.stringify({ error: message })}\n\n`;
  }
}
