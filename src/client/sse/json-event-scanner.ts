/**
 * The SSE scanner of the event-typed streams (OpenAI Responses, Anthropic Messages): SSE
 * framing as in stream-scanner.ts (WHATWG: LF, CR or CRLF line ends, `event:` and `data:`
 * fields, multi-line data joined by LF, `:` comments, a leading BOM dropped, an event dispatched
 * on a blank line), each payload decoded and JSON.parse'd, its meaning left to the kind's
 * `onEvent`. These kinds are not on the byte-scan fast path of completions and chat: every event
 * is parsed, which is what their nested payloads need anyway.
 */
import type { StreamScan, UsageCounts } from '../stream-events.js';
import { FloatBuffer } from '../../util/byte-buffer.js';
import { MALFORMED_MAX } from './slow-event.js';

export type JsonObject = Record<string, unknown>;
export const isJsonObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export abstract class JsonEventScanner implements StreamScan {
  private readonly times = new FloatBuffer();
  private reasoning = 0;
  private firstReasoning = -1;
  private firstAnswer = -1;
  private afterDone = 0;
  private readonly parts: string[] | null;
  usage: UsageCounts | null = null;
  finishReason: string | null = null;
  sawDone = false;
  errorMessage: string | null = null;
  malformed: string | null = null;

  /** Streaming UTF-8 decode: a character cut by a read's end waits for the next; a leading BOM is dropped. */
  private readonly decoder = new TextDecoder('utf-8');
  /** Text of a line not yet ended. */
  private line = '';
  /** The last read ended in CR: an LF at the start of the next belongs to it. */
  private pendingCR = false;
  private eventName = '';
  private data: string | null = null;

  constructor(opts: { keepText?: boolean } = {}) {
    this.parts = opts.keepText === true ? [] : null;
  }

  /** One event's payload (a JSON object) with its type: the `event:` field, else the payload's `type`. */
  protected abstract onEvent(type: string, payload: JsonObject, now: number): void;

  /** A content event: output text (`answer`) or reasoning, timed at `now`; empty text is not content. */
  protected content(kind: 'answer' | 'reasoning', text: string | null, now: number): void {
    if (text !== null && text.length === 0) return;
    this.times.push(now);
    if (kind === 'answer') {
      if (this.firstAnswer < 0) this.firstAnswer = now;
    } else {
      this.reasoning++;
      if (this.firstReasoning < 0) this.firstReasoning = now;
    }
    if (text !== null) this.parts?.push(text);
  }

  get contentEvents(): number {
    return this.times.length;
  }
  contentTimes(): Float64Array {
    return this.times.view();
  }
  get reasoningEvents(): number {
    return this.reasoning;
  }
  get firstReasoningMs(): number | null {
    return this.firstReasoning < 0 ? null : this.firstReasoning;
  }
  get firstAnswerMs(): number | null {
    return this.firstAnswer < 0 ? null : this.firstAnswer;
  }
  get eventsAfterDone(): number {
    return this.afterDone;
  }
  get text(): string | null {
    return this.parts === null ? null : this.parts.join('');
  }

  push(bytes: Uint8Array, nowMs: number): void {
    this.scan(this.decoder.decode(bytes, { stream: true }), nowMs);
  }

  end(nowMs: number): void {
    this.scan(this.decoder.decode(), nowMs);
    if (this.line.length > 0) this.field(this.line);
    this.line = '';
    this.pendingCR = false;
    this.dispatch(nowMs);
  }

  private scan(s: string, now: number): void {
    let i = 0;
    const n = s.length;
    if (this.pendingCR && n > 0) {
      this.pendingCR = false;
      if (s.charCodeAt(0) === 0x0a) i = 1;
    }
    while (i < n) {
      let j = i;
      while (j < n) {
        const c = s.charCodeAt(j);
        if (c === 0x0a || c === 0x0d) break;
        j++;
      }
      if (j === n) {
        this.line += s.slice(i);
        return;
      }
      const line = this.line + s.slice(i, j);
      this.line = '';
      if (line.length === 0) this.dispatch(now);
      else this.field(line);
      if (s.charCodeAt(j) === 0x0d) {
        if (j + 1 === n) this.pendingCR = true;
        else if (s.charCodeAt(j + 1) === 0x0a) j++;
      }
      i = j + 1;
    }
  }

  private field(line: string): void {
    if (line.charCodeAt(0) === 0x3a) return; // comment
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 0x20) value = value.slice(1);
    if (name === 'data') this.data = this.data === null ? value : `${this.data}\n${value}`;
    else if (name === 'event') this.eventName = value;
  }

  private dispatch(now: number): void {
    const data = this.data;
    const name = this.eventName;
    this.data = null;
    this.eventName = '';
    if (data === null) return;
    const t = data.trim();
    // A keep-alive, or the `data: [DONE]` vLLM's Messages server adds after message_stop.
    if (t.length === 0 || t === '[DONE]') return;
    if (this.sawDone) {
      this.afterDone++;
      return;
    }
    let v: unknown;
    try {
      v = JSON.parse(data);
    } catch {
      v = undefined;
    }
    if (!isJsonObject(v)) {
      this.malformed ??= data.slice(0, MALFORMED_MAX);
      return;
    }
    this.onEvent(name !== '' ? name : typeof v.type === 'string' ? v.type : '', v, now);
  }
}

export { errorText as errorTextOf } from './slow-event.js';

export const numOrNull = (v: unknown): number | null => (typeof v === 'number' ? v : null);
