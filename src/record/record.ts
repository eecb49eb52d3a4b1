/**
 * The request record: one per request attempt. Everything infermeter reports is derived
 * from these. Times are milliseconds (float, µs resolution) on one monotonic clock,
 * relative to the run's start (`createRunClock` in src/runner/run-clock.ts). See docs/records.md.
 */

/** Reads the run's clock: monotonic milliseconds since the run's t = 0, the time base of every record. */
export type Clock = () => number;

/** Only `measure` records count in figures; ramp_up/ramp_down are the --ramp-up/--ramp-down parts of the load. */
export const PHASES = ['warmup', 'measure', 'cooldown', 'ramp_up', 'ramp_down'] as const;
export type Phase = (typeof PHASES)[number];

/** Outcome of one attempt. */
export type RequestStatus = 'ok' | 'error' | 'timeout' | 'cancelled';

/**
 * The closed set of error classes. One table, stable codes: reports group by these.
 * - http_429: rate limited; http_4xx: other client errors; http_5xx: server errors
 * - connect: could not open a connection (refused, DNS, reset before any response)
 * - disconnect: connection closed mid-response (stream ended without completing)
 * - stalled: the response had begun, then no byte came for --stall-timeout; the client ended it
 * - malformed_stream: SSE/JSON the client could not understand
 * - not_event_stream: a 200 answer to a streaming request that is not an event stream (an HTML page)
 * - server_error_event: the server sent an error object inside a 200 stream
 * - empty_response: completed, but no output content at all
 * - timeout: per-request timeout hit; cancelled: aborted by the end of the run
 * - plugin_error: a plugin kind's buildBody threw, so the request was never sent
 * - client_limit: the client had no descriptor left for the connection (EMFILE, ENFILE): its own limit, not the server's
 */
export const ERROR_CLASSES = [
  'http_429',
  'http_4xx',
  'http_5xx',
  'connect',
  'disconnect',
  'stalled',
  'malformed_stream',
  'not_event_stream',
  'server_error_event',
  'empty_response',
  'timeout',
  'cancelled',
  // Appended: the typed columns store a class by its index here.
  'plugin_error',
  'client_limit',
] as const;
export type ErrorClass = (typeof ERROR_CLASSES)[number];

/** Where a token count came from: server `usage`, a tokenizer, or a count of content chunks. */
export type TokenSource = 'usage' | 'tokenizer' | 'chunks' | 'none';

export interface RequestRecord {
  id: number;
  phase: Phase;
  /** Sweep stage index (0 when the run has one stage). */
  stage: number;
  /** Load shard that ran it: the worker thread (0 for a single worker); in a distributed run the process-wide shard offset (docs/distributed.md). */
  worker: number;
  /** Distributed runs only: index of the worker process (`infermeter worker`) that sent it; absent otherwise. */
  node?: number;
  task: string | null;
  session: string | null;
  turn: number | null;

  /** When the load model wanted it sent. Equals sent_ms in closed loop. */
  scheduled_ms: number;
  /** Just before the request was written, after any concurrency gate. */
  sent_ms: number;
  /** First SSE event carrying output content (text, reasoning or tool-call delta); null if none. */
  first_token_ms: number | null;
  /** Arrival time of every content chunk, in order. */
  chunk_ms: Float64Array;
  /** Last byte / stream end (or the moment of failure). */
  end_ms: number;

  prompt_tokens: number | null;
  output_tokens: number;
  /** Requested output length (max_tokens), when the workload set one. */
  requested_output_tokens: number | null;
  token_source: TokenSource;
  /** Client-side prompt token count (estimate or tokenizer), for usage cross-checks. */
  client_prompt_tokens: number | null;
  status: RequestStatus;
  error_class: ErrorClass | null;
  http_status: number | null;
  finish_reason: string | null;
  /** A short, server-derived message for errors (never contains secrets). */
  error_message: string | null;
  /** Kept only with --keep-text or quality checks. */
  output_text: string | null;

  // Reasoning (thinking) models. Present only when the response carried reasoning (streamed
  // reasoning deltas or usage.completion_tokens_details.reasoning_tokens > 0); absent means none,
  // so the answer starts at first_token_ms. See docs/records.md.
  /** First event carrying reasoning (`delta.reasoning_content` / `delta.reasoning`); null when none was streamed (hidden reasoning). */
  first_reasoning_ms?: number | null;
  /** First event carrying the answer (content, text or a tool call); null when no answer came. */
  first_answer_ms?: number | null;
  /** Reasoning tokens: usage.completion_tokens_details.reasoning_tokens, else the number of reasoning events. Answer tokens = output_tokens − reasoning_tokens. */
  reasoning_tokens?: number;

  // Retries (--retries). Absent on a request's only attempt. See docs/records.md.
  /** 0 for a request's first attempt, k for its k-th retry; every attempt is a record with the request's id. */
  attempt?: number;
  /** Another attempt of the same request followed this one: figures count only the last attempt. */
  retried?: boolean;
  /** The server's Retry-After on this answer (429/503), in ms. */
  retry_after_ms?: number;

  /**
   * A chat request of more than one message: how many it sent (the served-vs-asked prompt-length
   * check allows the chat template's tokens for each). Absent for one message or a completions prompt.
   */
  prompt_messages?: number;
  /**
   * Endpoint kinds that answer a batch without generating (embeddings, records schema 3): how
   * many inputs the request carried (--batch-size). Absent for generation requests.
   */
  inputs?: number;
  /**
   * Media sent with the prompt (records schema 5, docs/records.md): images (image_url parts) and
   * their bytes (0 for a URL the client did not read), audio clips (input_audio parts or a
   * transcription's file) and their bytes. Absent for text-only requests.
   */
  images?: number;
  image_bytes?: number;
  audio_clips?: number;
  audio_bytes?: number;
  /** Events the server sent after `data: [DONE]`: ignored, only counted. Absent when none. */
  events_after_done?: number;
  /** Why the server's usage was not believed (negative, fractional, a prompt length far from the one sent); the token counts then come from the tokenizer or the chunks. Absent when usage was taken or none came. */
  usage_rejected?: string;
  // Trace join (issue 29, docs/records.md): absent in records written before them.
  /** The W3C trace id sent in this attempt's `traceparent` (and as its `X-Request-Id`): 32 hex digits. */
  trace_id?: string;
  /** The server's own id for the response (the stream's `id` field, `cmpl-…`); absent when it sent none. */
  response_id?: string;
  /** Quality check of the answer (issue 15, docs/quality.md); absent when the request had no check. */
  quality?: RecordQuality;
}

/** The outcome of one answer check; kinds and outcome classes are listed in src/quality/check-types.ts. */
export interface RecordQuality {
  /** Check kind: exact, normalized, regex, contains, choice, numeric, json, max_length, refusal, closed_book, code, citation. */
  kind: string;
  pass: boolean;
  /** correct, wrong, hallucinated, abstained, refused, complied, malformed or empty. */
  outcome: string;
  /** One short line saying why. */
  reason: string;
}

/** A fresh record with every optional field empty; the target fills it in. */
export function emptyRecord(id: number, scheduledMs: number): RequestRecord {
  return {
    id,
    phase: 'measure',
    stage: 0,
    worker: 0,
    task: null,
    session: null,
    turn: null,
    scheduled_ms: scheduledMs,
    sent_ms: scheduledMs,
    first_token_ms: null,
    chunk_ms: new Float64Array(0),
    end_ms: scheduledMs,
    prompt_tokens: null,
    output_tokens: 0,
    requested_output_tokens: null,
    token_source: 'none',
    client_prompt_tokens: null,
    status: 'ok',
    error_class: null,
    http_status: null,
    finish_reason: null,
    error_message: null,
    output_text: null,
  };
}
