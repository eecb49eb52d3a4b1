/**
 * Engines' native streaming APIs, each its own stream format on the shared SSE framing of
 * JsonEventScanner (client/sse/json-event-scanner.ts: LF/CR/CRLF, `data:` with or without the
 * space, multi-line data, comments, BOM): the payload's meaning is read here.
 *
 * - **tgi** — Hugging Face TGI `POST /generate_stream`, body `{"inputs","parameters":{…}}`. One
 *   event per token `{"index","token":{"id","text","logprob","special"},"generated_text":null,
 *   "details":null}`; the last one carries `generated_text` and (with `details: true`) `details`
 *   `{"finish_reason":"length"|"eos_token"|"stop_sequence","generated_tokens","seed","input_length"}`.
 *   A special token (the EOS) is not content. Errors: `{"error":"…","error_type":"…"}`.
 *   Source: text-generation-inference router/src/lib.rs (StreamResponse, StreamDetails,
 *   ErrorResponse), router/src/server.rs (generate_stream), docs/openapi.json.
 * - **sglang** — SGLang `POST /generate` with `"stream": true`, body `{"text","sampling_params",
 *   "stream"}`. One event per stream interval `{"text","output_ids","meta_info":{"id",
 *   "finish_reason","prompt_tokens","completion_tokens",…}}`; `text` is the whole text so far
 *   (cumulative, SGLang's default) — the `sglang-incremental` kind reads servers started with
 *   `--incremental-streaming-output`, whose `text` is the new piece only. `finish_reason` is null
 *   until the last event (`{"type":"length","length":n}`, `{"type":"stop","matched":…}`,
 *   `{"type":"abort","message":…}`), then `data: [DONE]`. Errors: `{"error":{"message":…}}`.
 *   Source: sglang python/sglang/srt/entrypoints/http_server.py (generate_request,
 *   stream_results), docs sampling_params.md, test/srt/test_httpserver_decode_stream.py.
 * - **triton** — Triton's generate extension for TensorRT-LLM, `POST
 *   /v2/models/{model}/generate_stream`, body `{"text_input","max_tokens","stream":true,…}` (the
 *   ensemble's inputs as top-level fields). Events `{"model_name","model_version",
 *   "sequence_end","sequence_id","sequence_start","text_output"}`; nothing marks the end but the
 *   end of the response. `text_output` is the new text (the ensemble's default); the
 *   `triton-cumulative` kind reads a model that sends the text so far (the BLS model with
 *   `accumulate_tokens`). No usage is sent: output tokens come from --tokenizer or the events.
 *   Errors: `{"error":"…"}`. Source: triton-inference-server/server
 *   docs/protocol/extension_generate.md; tensorrtllm_backend docs (ensemble inputs, accumulate_tokens).
 */
import { bearerAuth, type BodyOptions, type EndpointKind, type UnaryAnswer } from './endpoint-kind.js';
import type { WorkItem } from '../../workload/types.js';
import { JsonEventScanner, errorTextOf, isJsonObject, numOrNull, type JsonObject } from '../sse/json-event-scanner.js';

/** TGI's finish reasons in the OpenAI words figures read. */
const tgiFinish = (r: unknown): string | null => (r === 'eos_token' || r === 'stop_sequence' ? 'stop' : typeof r === 'string' ? r : null);

export class TgiScanner extends JsonEventScanner {
  protected onEvent(_type: string, p: JsonObject, now: number): void {
    if (p.error !== undefined && p.error !== null) {
      this.errorMessage ??= errorTextOf(p.error);
      return;
    }
    const t = isJsonObject(p.token) ? p.token : null;
    if (t !== null && t.special !== true) this.content('answer', typeof t.text === 'string' ? t.text : '', now);
    const d = isJsonObject(p.details) ? p.details : null;
    if (d !== null) {
      this.finishReason = tgiFinish(d.finish_reason);
      this.usage = { prompt_tokens: numOrNull(d.input_length), completion_tokens: numOrNull(d.generated_tokens) };
    }
    if (d !== null || typeof p.generated_text === 'string') this.sawDone = true;
  }
}

/** SGLang's finish_reason object: `stop`/`length` in the OpenAI words; `abort` is a failure. */
function sglangFinish(r: unknown): { finish: string | null; abort: string | null } {
  if (!isJsonObject(r)) return { finish: typeof r === 'string' ? r : null, abort: null };
  if (r.type === 'abort') return { finish: null, abort: typeof r.message === 'string' ? r.message : 'request aborted' };
  return { finish: typeof r.type === 'string' ? r.type : null, abort: null };
}

export class SglangScanner extends JsonEventScanner {
  /** The text so far (cumulative mode): each event's new piece is what follows it. */
  private sofar = '';

  constructor(
    opts: { keepText?: boolean },
    private readonly cumulative: boolean,
  ) {
    super(opts);
  }

  protected onEvent(_type: string, p: JsonObject, now: number): void {
    if (p.error !== undefined && p.error !== null) {
      this.errorMessage ??= errorTextOf(p.error);
      return;
    }
    if (typeof p.text === 'string') this.content('answer', this.piece(p.text), now);
    const m = isJsonObject(p.meta_info) ? p.meta_info : null;
    if (m === null) return;
    this.usage = { prompt_tokens: numOrNull(m.prompt_tokens), completion_tokens: numOrNull(m.completion_tokens) };
    const f = sglangFinish(m.finish_reason);
    if (f.abort !== null) this.errorMessage ??= f.abort;
    else if (f.finish !== null) {
      this.finishReason = f.finish;
      this.sawDone = true;
    }
  }

  private piece(text: string): string {
    if (!this.cumulative) return text;
    // A text that does not extend the last one (a server sending pieces) is taken whole.
    const piece = text.startsWith(this.sofar) ? text.slice(this.sofar.length) : text;
    this.sofar = text;
    return piece;
  }
}

export class TritonScanner extends JsonEventScanner {
  private sofar = '';

  constructor(
    opts: { keepText?: boolean },
    private readonly cumulative: boolean,
  ) {
    super(opts);
  }

  protected onEvent(_type: string, p: JsonObject, now: number): void {
    if (p.error !== undefined && p.error !== null) {
      this.errorMessage ??= errorTextOf(p.error);
      return;
    }
    if (typeof p.text_output !== 'string') return;
    let piece = p.text_output;
    if (this.cumulative) {
      piece = piece.startsWith(this.sofar) ? piece.slice(this.sofar.length) : piece;
      this.sofar = p.text_output;
    }
    this.content('answer', piece, now);
  }

  /** The stream has no end event: a response that ends whole is done (a cut connection fails as a disconnect in the client). */
  override end(nowMs: number): void {
    super.end(nowMs);
    this.sawDone = true;
  }
}

/** A kind's own object of parameters (`parameters`, `sampling_params`) with the user's --extra-body one merged over it. */
function withParams(key: string, ours: Record<string, unknown>, opts: BodyOptions): Record<string, unknown> {
  const extra = opts.extraBody[key];
  return { ...opts.extraBody, [key]: { ...ours, ...(isJsonObject(extra) ? extra : {}) } };
}

/** TGI's whole answer (/generate): `{"generated_text","details"}`, or the Inference API's one-element list of it. */
export function parseTgiAnswer(json: unknown): UnaryAnswer | null {
  const o = Array.isArray(json) && json.length === 1 ? json[0] : json;
  if (!isJsonObject(o) || typeof o.generated_text !== 'string') return null;
  const d = isJsonObject(o.details) ? o.details : null;
  return { text: o.generated_text, usage: d ? { prompt_tokens: numOrNull(d.input_length), completion_tokens: numOrNull(d.generated_tokens) } : null, finishReason: d ? tgiFinish(d.finish_reason) : null };
}

/** SGLang's whole answer: `{"text","meta_info":{…}}`. */
export function parseSglangAnswer(json: unknown): UnaryAnswer | null {
  if (!isJsonObject(json) || typeof json.text !== 'string') return null;
  const m = isJsonObject(json.meta_info) ? json.meta_info : null;
  return { text: json.text, usage: m ? { prompt_tokens: numOrNull(m.prompt_tokens), completion_tokens: numOrNull(m.completion_tokens) } : null, finishReason: m ? sglangFinish(m.finish_reason).finish : null };
}

/** Triton's whole answer (/generate): `{"model_name","model_version","text_output"}`. */
export function parseTritonAnswer(json: unknown): UnaryAnswer | null {
  if (!isJsonObject(json) || typeof json.text_output !== 'string') return null;
  return { text: json.text_output, usage: null, finishReason: null };
}

/** Output bound when the workload gives none: the ensemble requires max_tokens (Anthropic's kind uses the same). */
const DEFAULT_MAX_TOKENS = 4096;

export const tgiKind: EndpointKind = {
  name: 'tgi',
  path: '/generate_stream',
  generates: true,
  input: 'prompt',
  streamEnd: 'a final event with generated_text',
  authHeaders: bearerAuth,
  // TGI has no ignore_eos: opts.ignoreEos is not sent. details: true asks for the usage at the end.
  sendsIgnoreEos: false,
  buildBody: (item: WorkItem, opts: BodyOptions) => ({ inputs: item.prompt, ...withParams('parameters', { ...(item.max_tokens !== null ? { max_new_tokens: item.max_tokens } : {}), details: true }, opts) }),
  newScanner: (o) => new TgiScanner(o),
  parseUnary: parseTgiAnswer,
};

function sglangKind(name: string, cumulative: boolean): EndpointKind {
  return {
    name,
    path: '/generate',
    generates: true,
    input: 'prompt',
    streamEnd: 'a finish_reason in meta_info',
    authHeaders: bearerAuth,
    buildBody: (item, opts) => {
      const sp: Record<string, unknown> = {};
      if (item.max_tokens !== null) sp.max_new_tokens = item.max_tokens;
      if (opts.ignoreEos) sp.ignore_eos = true;
      return { text: item.prompt, ...(opts.stream ? { stream: true } : {}), ...withParams('sampling_params', sp, opts) };
    },
    newScanner: (o) => new SglangScanner(o, cumulative),
    parseUnary: parseSglangAnswer,
  };
}
export const sglangCumulativeKind = sglangKind('sglang', true);
export const sglangIncrementalKind = sglangKind('sglang-incremental', false);

/** The TensorRT-LLM backend's default model: its ensemble. */
export const TRITON_DEFAULT_PATH = '/v2/models/ensemble/generate_stream';

function tritonKind(name: string, cumulative: boolean): EndpointKind {
  return {
    name,
    path: TRITON_DEFAULT_PATH,
    generates: true,
    input: 'prompt',
    streamEnd: 'the end of the response',
    authHeaders: bearerAuth,
    // The ensemble has no ignore_eos input: opts.ignoreEos is not sent.
    sendsIgnoreEos: false,
    buildBody: (item, opts) => ({ text_input: item.prompt, max_tokens: item.max_tokens ?? DEFAULT_MAX_TOKENS, stream: opts.stream, ...opts.extraBody }),
    newScanner: (o) => new TritonScanner(o, cumulative),
    parseUnary: parseTritonAnswer,
  };
}
export const tritonDeltaKind = tritonKind('triton', false);
export const tritonCumulativeKind = tritonKind('triton-cumulative', true);

/** Triton's generate paths name the model (and maybe a version): `/v2/models/NAME[/versions/V]/generate_stream`. */
export const TRITON_PATH = /\/v2\/models\/[^/]+(?:\/versions\/[^/]+)?\/generate(?:_stream)?$/;
