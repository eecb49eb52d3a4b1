/**
 * The reference meaning of one SSE data payload of an OpenAI-compatible stream, applied to
 * the decoded string with JSON.parse. The fast byte classifier (json-classify.ts) defers to
 * this for every payload it is not sure about; both must agree (see the property tests).
 */

import type { UsageCounts } from '../stream-events.js';
import { KIND_ANSWER, KIND_REASONING } from './json-classify.js';
import type { TextKeeper } from './text-keeper.js';

/** What the scanner keeps; the slow path writes into it directly. */
export interface EventSink {
  usage: UsageCounts | null;
  finishReason: string | null;
  sawDone: boolean;
  errorMessage: string | null;
  malformed: string | null;
  /** null unless text is kept */
  text: TextKeeper | null;
}

/** Longest malformed payload kept, in UTF-16 code units. */
export const MALFORMED_MAX = 200;

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/**
 * Apply one payload. Returns the KIND_* bits of the output content it carries (0: none).
 * - whitespace-only payload: ignored (a keep-alive);
 * - `[DONE]`: sets sawDone;
 * - not JSON, or JSON but not an object: first one kept (truncated) in `malformed`;
 * - otherwise usage / finish_reason / error / content as described in stream-events.ts.
 */
export function applySlowPayload(sink: EventSink, payload: string): number {
  const t = payload.trim();
  if (t.length === 0) return 0;
  if (t === '[DONE]') {
    sink.sawDone = true;
    return 0;
  }
  let v: unknown;
  try {
    v = JSON.parse(payload);
  } catch {
    v = undefined;
  }
  if (!isObj(v)) {
    sink.malformed ??= payload.slice(0, MALFORMED_MAX);
    return 0;
  }
  return applyObject(sink, v);
}

function applyObject(sink: EventSink, o: Obj): number {
  if (o.error !== undefined && o.error !== null) sink.errorMessage ??= errorText(o.error);
  else if (o.object === 'error') sink.errorMessage ??= typeof o.message === 'string' ? o.message : JSON.stringify(o);

  const u = o.usage;
  if (isObj(u)) {
    const details = u.completion_tokens_details;
    const reasoning = isObj(details) && typeof details.reasoning_tokens === 'number' ? details.reasoning_tokens : null;
    sink.usage = {
      prompt_tokens: typeof u.prompt_tokens === 'number' ? u.prompt_tokens : null,
      completion_tokens: typeof u.completion_tokens === 'number' ? u.completion_tokens : null,
      ...(reasoning !== null ? { reasoning_tokens: reasoning } : {}),
    };
  }

  let content = 0;
  const choices = o.choices;
  if (!Array.isArray(choices)) return 0;
  for (const c of choices) {
    if (!isObj(c)) continue;
    if (typeof c.finish_reason === 'string') sink.finishReason = c.finish_reason;
    if (nonEmpty(c.text)) {
      content |= KIND_ANSWER;
      sink.text?.appendString(c.text);
    }
    const d = c.delta;
    if (!isObj(d)) continue;
    for (const k of ['reasoning_content', 'reasoning', 'content'] as const) {
      const s = d[k];
      if (nonEmpty(s)) {
        content |= k === 'content' ? KIND_ANSWER : KIND_REASONING;
        sink.text?.appendString(s);
      }
    }
    if (Array.isArray(d.tool_calls) && d.tool_calls.length > 0) content |= KIND_ANSWER;
  }
  return content;
}

/** The message of an error object (`{"message": …}`), a string, or the JSON of anything else. */
export function errorText(e: unknown): string {
  if (typeof e === 'string') return e;
  if (isObj(e) && typeof e.message === 'string') return e.message;
  return JSON.stringify(e);
}
