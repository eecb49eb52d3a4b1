/**
 * Contract between the HTTP streaming client and the SSE scanner of an OpenAI-compatible
 * stream. The client feeds raw response bytes with their arrival time; the scanner keeps
 * what a RequestRecord needs. Implemented by `OpenAIStreamScanner` (stream-scanner.ts).
 */

export interface UsageCounts {
  prompt_tokens: number | null;
  completion_tokens: number | null;
  /** `usage.completion_tokens_details.reasoning_tokens`, present only when the server gave it. */
  reasoning_tokens?: number;
}

export interface StreamScan {
  /** Feed one network read. All events completed by these bytes get timestamp `nowMs`. */
  push(bytes: Uint8Array, nowMs: number): void;
  /** The response body ended; flushes a final event not terminated by a blank line. */
  end(nowMs: number): void;

  /** Content-carrying events seen (text, reasoning or tool-call delta, non-empty). */
  readonly contentEvents: number;
  /** Arrival time of each content event, in order (length == contentEvents). */
  contentTimes(): Float64Array;
  /** Content events carrying reasoning (`delta.reasoning_content` or `delta.reasoning`, non-empty). */
  readonly reasoningEvents: number;
  /** Arrival time of the first reasoning event; null when none. */
  readonly firstReasoningMs: number | null;
  /** Arrival time of the first event carrying answer content (text, content, tool calls); null when none. */
  readonly firstAnswerMs: number | null;
  /** `usage` from whichever event carried it (separate chunk or together with choices). */
  readonly usage: UsageCounts | null;
  /** Last non-null finish_reason seen. */
  readonly finishReason: string | null;
  /** True once `data: [DONE]` was seen. */
  readonly sawDone: boolean;
  /** Events dispatched after `[DONE]`: the stream was over, so they are ignored and only counted. */
  readonly eventsAfterDone: number;
  /** Message of an `{"error": ...}` event inside the stream, if any. */
  readonly errorMessage: string | null;
  /** A data payload that is not valid JSON (or not an object) was seen; first such payload, truncated. */
  readonly malformed: string | null;
  /** Concatenated output text (content + reasoning), only when constructed with keepText. */
  readonly text: string | null;
}
