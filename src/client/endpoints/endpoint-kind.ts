/**
 * What an endpoint kind is: the one interface every API infermeter measures implements — the
 * built-in kinds (completions, chat, embeddings, responses, anthropic, the native tgi, sglang, triton) and a plugin's
 * (docs/plugins.md). A kind says how a workload item becomes a request body, how the answer
 * (a stream, or one JSON body) becomes the record's fields, and which figures apply.
 *
 * The client (http-client.ts) owns everything else: the transport, timing, retries, failures,
 * redaction. A kind never sees a socket or a clock: a stream scanner is fed the reads and their
 * arrival times, and answers what the record needs (stream-events.ts: StreamScan).
 */
import type { WorkItem } from '../../workload/types.js';
import type { InputUnit } from '../../record/input-unit.js';
import type { StreamScan, UsageCounts } from '../stream-events.js';

export interface BodyOptions {
  model: string;
  /** Stream the answer: only asked of a kind that has a scanner. */
  stream: boolean;
  ignoreEos: boolean;
  /** The user's --extra-body: a kind merges it last, so the user's fields win. */
  extraBody: Record<string, unknown>;
}

/** A whole (non-streamed) answer, read from its JSON body. */
export interface UnaryAnswer {
  /** The output text (answer and reasoning); '' when the kind generates none. */
  text: string;
  usage: UsageCounts | null;
  /** In the words of the OpenAI APIs (`stop`, `length`, `tool_calls`): figures read them. */
  finishReason: string | null;
  /** Kinds that answer a batch (embeddings): how many inputs the answer covers. */
  inputs?: number;
}

/** A request body that is not JSON, and the Content-Type header it is sent with. */
export interface RawBody {
  contentType: string;
  bytes: Buffer;
}

export interface EndpointKind {
  /** The `--endpoint-type` name. */
  readonly name: string;
  /** The API path used when `--endpoint` is not given. */
  readonly path: string;
  /**
   * true: the answer is generated tokens, so TTFT, TPOT and ITL apply. false: one answer per
   * request (embeddings): latency per request only, and a TTFT/TPOT/ITL SLO is refused.
   */
  readonly generates: boolean;
  /**
   * What a request's inputs are, for the figures' labels (`metrics.batch.input_unit`: "documents/s"
   * for rerank and score); absent: `inputs` (embeddings, a plugin's). Only kinds that generate nothing carry a batch.
   */
  readonly inputUnit?: InputUnit;
  /**
   * false: the API has no ignore_eos (TGI, Triton's ensemble, transcription), so the run never asks
   * for exact output lengths and the check "output ≠ max_tokens despite ignore_eos" does not apply;
   * absent: the kind sends it when asked.
   */
  readonly sendsIgnoreEos?: boolean;
  /**
   * What the workload hands it: a prompt, chat messages (the prompt as one user message when
   * none), or an audio clip (transcription: the item's text is not sent, and a workload without
   * audio is refused).
   */
  readonly input: 'prompt' | 'messages' | 'audio';
  /** What it takes beside text (chat: `image` as image_url parts, `audio` as input_audio parts); absent: text only, and a workload with images is refused. */
  readonly media?: readonly ('image' | 'audio')[];
  /** Headers the API always wants (Anthropic's `anthropic-version`); the user's --header wins. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The headers that carry the API key (`Authorization: Bearer …`, or Anthropic's `x-api-key`). */
  authHeaders(apiKey: string): Record<string, string>;
  /** The JSON request body for one item; `opts.extraBody` merged last. */
  buildBody(item: WorkItem, opts: BodyOptions): Record<string, unknown>;
  /**
   * A body that is not JSON (transcription's multipart/form-data): the bytes and their content
   * type, built once per request at preparation; `seq` numbers the target's requests (a multipart
   * boundary is made of it, so the same request has the same bytes in every run). Absent: the
   * body is buildBody's JSON, sent as application/json.
   */
  buildRawBody?(item: WorkItem, opts: BodyOptions, seq: number): RawBody;
  /** What ends one of its streams, for the message of a stream cut short (`[DONE]`, `message_stop`). */
  readonly streamEnd?: string;
  /** A fresh scanner for one streamed response; absent: the kind never streams (requests go unary). */
  newScanner?(opts: { keepText: boolean }): StreamScan;
  /** The answer in a non-streamed body; null when the body is not this kind's answer. */
  parseUnary(json: unknown): UnaryAnswer | null;
}

/** The header every OpenAI-compatible API takes the key in. */
export function bearerAuth(apiKey: string): Record<string, string> {
  return { authorization: `Bearer ${apiKey}` };
}
