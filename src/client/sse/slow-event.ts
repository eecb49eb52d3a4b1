/**
 * The reference meaning of one SSE data payload of an OpenAI-compatible stream, applied to
 * the decoded string with JSON.parse. The fast byte classifier (json-classify.ts) defers to
 * this for every payload it is not sure about; both must agree (see the property tests).
 */

import type { UsageCounts } from '../stream-events.js';
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
 * Apply one payload. Returns true when it carries output content.
 * - whitespace-only payload: ignored (a keep-alive);
 * - `[DONE]`: sets sawDone;
 * - not JSON, or JSON but not an object: first one kept (truncated) in `malformed`;
 * - otherwise usage / finish_reason / error / content as described in stream-events.ts.
 */
export function applySlowPayload(sink: EventSink, payload: string): boolean {
  const t = payload.trim();
  if (t.length === 0) return false;
  if (t === '[DONE]') {
    sink.sawDone = true;
    return false;
  }
  let v: unknown;
  try {
    v = JSON.parse(payload);
  } catch {
    v = undefined;
  }
  if (!isObj(v)) {
    sink.malformed ??= payload.slice(0, MALFORMED_MAX);
    return false;
  }
  return applyObject(sink, v);
}

function applyObject(sink: EventSink, o: Obj): boolean {
  if (o.error !== undefined && o.error !== null) sink.errorMessage ??= errorText(o.error);
  else if (o.object === 'error') sink.errorMessage ??= typeof o.message === 'string' ? o.message : JSON.stringify(o);

  const u = o.usage;
  if (isObj(u)) {
    sink.usage = {
      prompt_tokens: typeof u.prompt_tokens === 'number' ? u.prompt_tokens : null,
      completion_tokens: typeof u.completion_tokens === 'number' ? u.completion_tokens : null,
    };
  }

  let content = false;
  const choices = o.choices;
  if (!Array.isArray(choices)) return false;
  for (const c of choices) {
    if (!isObj(c)) continue;
    if (typeof c.finish_reason === 'string') sink.finishReason = c.finish_reason;
    if (nonEmpty(c.text)) {
      content = true;
      sink.text?.appendString(c.text);
    }
    const d = c.delta;
    if (!isObj(d)) continue;
    for (const k of ['reasoning_content', 'reasoning', 'content'] as const) {
      const s = d[k];
      if (nonEmpty(s)) {
        content = true;
        sink.text?.appendString(s);
      }
    }
    if (Array.isArray(d.tool_calls) && d.tool_calls.length > 0) content = true;
  }
  return content;
}

function errorText(e: unknown): string {
  if (typeof e === 'string') return e;
  if (isObj(e) && typeof e.message === 'string') return e.message;
  return JSON.stringify(e);
}
