/**
 * SSE and JSON bodies exactly as real servers write them. Two dialects:
 *
 * vLLM (OpenAI-compatible server):
 *   chat: role-only delta first `{"role":"assistant","content":""}`; one chunk per token; the
 *   last token's chunk carries finish_reason; with usage asked, a separate chunk with
 *   `"choices":[]` and `usage`; then `data: [DONE]`.
 * llama.cpp (`llama-server`):
 *   every token chunk has finish_reason null; a final chunk with an empty delta/text carries
 *   finish_reason, `usage` and `timings` together; then `data: [DONE]`. (The socket is closed
 *   after the response although the header says keep-alive: see server.ts.)
 *
 * Per-chunk cost is one string concatenation: the JSON around the token is built once per
 * request, and output words are plain ASCII needing no escaping.
 */
import type { ReasoningField } from '../reasoning.js';

export type Dialect = 'vllm' | 'llamacpp';
/** The APIs the simulator serves: the two OpenAI generation APIs, embeddings, Responses, Anthropic Messages and the engines' native APIs (TGI, SGLang, Triton). */
export type Api = 'completions' | 'chat' | 'embeddings' | 'responses' | 'messages' | 'tgi' | 'sglang' | 'triton' | 'rerank' | 'score' | 'transcription';
/** The pooling APIs: one prefill, one JSON answer, nothing generated. */
export type PoolingApi = 'embeddings' | 'rerank' | 'score';
/** The generation APIs, whose answers are streamed token by token. */
export type GenerationApi = Exclude<Api, PoolingApi>;

/**
 * A generation API's wire format, one instance per response: what SimStream writes around the
 * tokens. ChunkFormat is the OpenAI one; event-wire.ts has Responses and Anthropic Messages.
 * A format may keep state across its calls (event sequence numbers, the text so far).
 */
export interface StreamWire {
  readonly dialect: Dialect;
  /** True when every event is pure ASCII (byte length = string length). */
  readonly ascii: boolean;
  /** The events before the first token. */
  head(): string;
  /** One token event; `word` is already escaped for a JSON string. */
  token(word: string, finish: string | null, reasoning?: boolean): string;
  /** Everything after the last token. */
  tail(finish: string, usage: Usage | null, timings: LlamaTimings | null): string;
  /** A whole non-streaming response body. */
  full(text: string, finish: string, usage: Usage, timings: LlamaTimings | null, reasoning?: string): string;
  /** The end of a 200 stream that failed (after its headers): an error event. */
  errorTail(message: string, type: string, code: number): string;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Only in reasoning mode, as OpenAI reports it. */
  completion_tokens_details?: { reasoning_tokens: number };
}

/** llama.cpp's `timings` object (ms and tokens/s). */
export interface LlamaTimings {
  prompt_n: number;
  prompt_ms: number;
  prompt_per_token_ms: number;
  prompt_per_second: number;
  predicted_n: number;
  predicted_ms: number;
  predicted_per_token_ms: number;
  predicted_per_second: number;
}

export function llamaTimings(promptN: number, promptMs: number, predictedN: number, predictedMs: number): LlamaTimings {
  const r = (x: number): number => Math.round(x * 1000) / 1000;
  return {
    prompt_n: promptN,
    prompt_ms: r(promptMs),
    prompt_per_token_ms: r(promptN > 0 ? promptMs / promptN : 0),
    prompt_per_second: r(promptMs > 0 ? (promptN * 1000) / promptMs : 0),
    predicted_n: predictedN,
    predicted_ms: r(predictedMs),
    predicted_per_token_ms: r(predictedN > 0 ? predictedMs / predictedN : 0),
    predicted_per_second: r(predictedMs > 0 ? (predictedN * 1000) / predictedMs : 0),
  };
}

export class ChunkFormat implements StreamWire {
  private readonly pre: string;
  /** Chat: the event prefix of a reasoning token (`delta.<reasoningField>`). */
  private readonly preReasoning: string;
  private readonly mid: string;
  private readonly meta: string;
  /** True when every event is pure ASCII (byte length = string length). */
  readonly ascii: boolean;

  constructor(
    readonly dialect: Dialect,
    readonly api: 'completions' | 'chat',
    readonly id: string,
    readonly created: number,
    readonly model: string,
    readonly reasoningField: ReasoningField = 'reasoning_content',
  ) {
    const m = JSON.stringify(model);
    const obj = api === 'chat' ? 'chat.completion.chunk' : 'text_completion';
    this.meta = `"id":"${id}","object":"${obj}","created":${created},"model":${m}`;
    // eslint-disable-next-line no-control-regex
    this.ascii = /^[\x00-\x7f]*$/.test(this.meta);
    if (api === 'chat') {
      this.pre = `data: {${this.meta},"choices":[{"index":0,"delta":{"content":"`;
      this.preReasoning = `data: {${this.meta},"choices":[{"index":0,"delta":{"${reasoningField}":"`;
      this.mid = `"},"logprobs":null,"finish_reason":`;
    } else {
      // Text completions carry no separate reasoning (vLLM's reasoning parser is chat-only).
      this.pre = this.preReasoning = `data: {${this.meta},"choices":[{"index":0,"text":"`;
      this.mid = `","logprobs":null,"finish_reason":`;
    }
  }

  /** The events before the first token: chat streams open with a role-only delta. */
  head(): string {
    if (this.api !== 'chat') return '';
    const content = this.dialect === 'vllm' ? '""' : 'null';
    return `data: {${this.meta},"choices":[{"index":0,"delta":{"role":"assistant","content":${content}},"logprobs":null,"finish_reason":null}]}\n\n`;
  }

  /** One token event (a reasoning delta when `reasoning`). `finish` is set on the last token in the vLLM dialect only. */
  token(word: string, finish: string | null, reasoning = false): string {
    const f = finish === null || this.dialect === 'llamacpp' ? 'null' : `"${finish}"`;
    return (reasoning ? this.preReasoning : this.pre) + word + this.mid + f + '}]}\n\n';
  }

  /** Everything after the last token, including `data: [DONE]`. */
  tail(finish: string, usage: Usage | null, timings: LlamaTimings | null): string {
    if (this.dialect === 'llamacpp') {
      const choice =
        this.api === 'chat'
          ? `{"index":0,"delta":{},"logprobs":null,"finish_reason":"${finish}"}`
          : `{"index":0,"text":"","logprobs":null,"finish_reason":"${finish}"}`;
      const u = usage ? `,"usage":${JSON.stringify(usage)}` : '';
      const t = timings ? `,"timings":${JSON.stringify(timings)}` : '';
      return `data: {${this.meta},"choices":[${choice}]${u}${t}}\n\ndata: [DONE]\n\n`;
    }
    const u = usage ? `data: {${this.meta},"choices":[],"usage":${JSON.stringify(usage)}}\n\n` : '';
    return u + 'data: [DONE]\n\n';
  }

  /** Like vLLM: an error object inside the 200 stream, then [DONE]. */
  errorTail(message: string, type: string, code: number): string {
    return `data: ${JSON.stringify({ error: { message, type, param: null, code } })}\n\ndata: [DONE]\n\n`;
  }

  /** A whole non-streaming response body; chat puts `reasoning` (when non-empty) beside the content. */
  full(text: string, finish: string, usage: Usage, timings: LlamaTimings | null, reasoning = ''): string {
    const obj = this.api === 'chat' ? 'chat.completion' : 'text_completion';
    const message = reasoning === '' ? { role: 'assistant', content: text } : { role: 'assistant', [this.reasoningField]: reasoning, content: text };
    const choice =
      this.api === 'chat'
        ? { index: 0, message, logprobs: null, finish_reason: finish }
        : { index: 0, text: reasoning + text, logprobs: null, finish_reason: finish };
    const body: Record<string, unknown> = {
      id: this.id,
      object: obj,
      created: this.created,
      model: this.model,
      choices: [choice],
      usage,
    };
    if (timings) body['timings'] = timings;
    return JSON.stringify(body);
  }
}

/**
 * vLLM's transcription stream (speech_to_text.py, _speech_to_text_stream_generator): one
 * `transcription.chunk` per output piece, `choices[0].delta.content`, the last with
 * `finish_reason` and `stop_reason`; with `stream_include_usage`, a `"choices":[]` chunk with
 * `usage`; then `data: [DONE]`. No role delta first. The unary answer is `{"text", "usage":
 * {"type":"duration","seconds":⌈audio s⌉}}` (TranscriptionResponse).
 */
export class TranscriptionWire implements StreamWire {
  readonly dialect: Dialect = 'vllm';
  readonly ascii: boolean;
  private readonly meta: string;

  constructor(id: string, created: number, model: string, private readonly audioSeconds: number) {
    this.meta = `"id":"${id}","object":"transcription.chunk","created":${created},"model":${JSON.stringify(model)}`;
    // eslint-disable-next-line no-control-regex
    this.ascii = /^[\x00-\x7f]*$/.test(this.meta);
  }

  head(): string {
    return '';
  }

  token(word: string, finish: string | null): string {
    const end = finish === null ? '' : `,"finish_reason":"${finish}","stop_reason":null`;
    return `data: {${this.meta},"choices":[{"delta":{"content":"${word}"}${end}}]}\n\n`;
  }

  tail(_finish: string, usage: Usage | null): string {
    const u = usage ? `data: {${this.meta},"choices":[],"usage":${JSON.stringify({ prompt_tokens: usage.prompt_tokens, total_tokens: usage.total_tokens, completion_tokens: usage.completion_tokens })}}\n\n` : '';
    return u + 'data: [DONE]\n\n';
  }

  errorTail(message: string, type: string, code: number): string {
    return `data: ${JSON.stringify({ error: { message, type, param: null, code } })}\n\ndata: [DONE]\n\n`;
  }

  full(text: string, _finish: string, _usage: Usage, _timings: LlamaTimings | null, reasoning = ''): string {
    return JSON.stringify({ text: reasoning + text, usage: { type: 'duration', seconds: Math.ceil(this.audioSeconds) } });
  }
}

/** OpenAI error body: `{"error":{"message","type","param","code"}}`. */
export function errorBody(message: string, type: string, code: string | number | null): string {
  return JSON.stringify({ error: { message, type, param: null, code } });
}
