/**
 * Test oracle: a deliberately simple SSE + OpenAI chunk parser written straight from the
 * WHATWG spec (TextDecoder, string line split, JSON.parse per event). Shares no code with
 * src/client/stream-scanner.ts or src/client/sse/.
 */

import type { UsageCounts, StreamScan } from '../../src/client/stream-events.js';

export interface ScanSummary {
  contentEvents: number;
  contentTimes: number[];
  reasoningEvents: number;
  firstReasoningMs: number | null;
  firstAnswerMs: number | null;
  usage: UsageCounts | null;
  finishReason: string | null;
  sawDone: boolean;
  eventsAfterDone: number;
  errorMessage: string | null;
  malformed: string | null;
  text: string | null;
}

export function summarize(s: StreamScan): ScanSummary {
  return {
    contentEvents: s.contentEvents,
    contentTimes: Array.from(s.contentTimes()),
    reasoningEvents: s.reasoningEvents,
    firstReasoningMs: s.firstReasoningMs,
    firstAnswerMs: s.firstAnswerMs,
    usage: s.usage,
    finishReason: s.finishReason,
    sawDone: s.sawDone,
    eventsAfterDone: s.eventsAfterDone,
    errorMessage: s.errorMessage,
    malformed: s.malformed,
    text: s.text,
  };
}

export class ReferenceScanner {
  private readonly decoder = new TextDecoder(); // strips a leading BOM, like an EventSource
  private buf = '';
  private skipLF = false;
  private data: string[] | null = null;
  readonly out: ScanSummary;

  constructor(keepText = false) {
    this.out = {
      contentEvents: 0,
      contentTimes: [],
      reasoningEvents: 0,
      firstReasoningMs: null,
      firstAnswerMs: null,
      usage: null,
      finishReason: null,
      sawDone: false,
      eventsAfterDone: 0,
      errorMessage: null,
      malformed: null,
      text: keepText ? '' : null,
    };
  }

  push(bytes: Uint8Array, now: number): void {
    this.buf += this.decoder.decode(bytes, { stream: true });
    this.lines(now);
  }

  end(now: number): void {
    this.buf += this.decoder.decode();
    this.lines(now);
    if (this.buf !== '') this.line(this.buf, now);
    this.buf = '';
    this.dispatch(now);
  }

  private lines(now: number): void {
    for (;;) {
      if (this.skipLF && this.buf !== '') {
        if (this.buf[0] === '\n') this.buf = this.buf.slice(1);
        this.skipLF = false;
      }
      const m = /[\r\n]/.exec(this.buf);
      if (m === null) return;
      const k = m.index;
      const line = this.buf.slice(0, k);
      if (this.buf[k] === '\r' && k + 1 === this.buf.length) {
        this.skipLF = true; // CR ends the line; an LF in the next read would belong to it
        this.buf = '';
      } else {
        this.buf = this.buf.slice(this.buf.startsWith('\r\n', k) ? k + 2 : k + 1);
      }
      this.line(line, now);
    }
  }

  private line(l: string, now: number): void {
    if (l === '') return this.dispatch(now);
    if (l.startsWith(':')) return;
    const c = l.indexOf(':');
    const field = c < 0 ? l : l.slice(0, c);
    let value = c < 0 ? '' : l.slice(c + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') (this.data ??= []).push(value);
  }

  private dispatch(now: number): void {
    if (this.data === null) return;
    const payload = this.data.join('\n');
    this.data = null;
    if (this.out.sawDone) {
      this.out.eventsAfterDone++; // the stream is over: ignored, only counted
      return;
    }
    const { answer, reasoning } = this.event(payload);
    if (answer || reasoning) {
      this.out.contentEvents++;
      this.out.contentTimes.push(now);
    }
    if (answer) this.out.firstAnswerMs ??= now;
    if (reasoning) {
      this.out.reasoningEvents++;
      this.out.firstReasoningMs ??= now;
    }
  }

  /** Whether the payload carries answer content (text, content, tool calls) and reasoning. */
  private event(payload: string): { answer: boolean; reasoning: boolean } {
    const o = this.out;
    const none = { answer: false, reasoning: false };
    if (payload.trim() === '') return none;
    if (payload.trim() === '[DONE]') {
      o.sawDone = true;
      return none;
    }
    let v: unknown;
    try {
      v = JSON.parse(payload);
    } catch {
      o.malformed ??= payload.slice(0, 200);
      return none;
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      o.malformed ??= payload.slice(0, 200);
      return none;
    }
    const ev = v as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    if (ev.error != null) {
      const e = ev.error;
      o.errorMessage ??= typeof e === 'string' ? e : typeof e === 'object' && !Array.isArray(e) && typeof e.message === 'string' ? e.message : JSON.stringify(e);
    } else if (ev.object === 'error') {
      o.errorMessage ??= typeof ev.message === 'string' ? ev.message : JSON.stringify(ev);
    }
    const u = ev.usage;
    if (typeof u === 'object' && u !== null && !Array.isArray(u)) {
      o.usage = {
        prompt_tokens: typeof u.prompt_tokens === 'number' ? u.prompt_tokens : null,
        completion_tokens: typeof u.completion_tokens === 'number' ? u.completion_tokens : null,
      };
      const d = u.completion_tokens_details;
      if (typeof d === 'object' && d !== null && !Array.isArray(d) && typeof d.reasoning_tokens === 'number') o.usage.reasoning_tokens = d.reasoning_tokens;
    }
    const out = { answer: false, reasoning: false };
    if (!Array.isArray(ev.choices)) return out;
    for (const ch of ev.choices) {
      if (typeof ch !== 'object' || ch === null || Array.isArray(ch)) continue;
      if (typeof ch.finish_reason === 'string') o.finishReason = ch.finish_reason;
      const pieces: Array<[unknown, 'answer' | 'reasoning']> = [[ch.text, 'answer']];
      const d = ch.delta;
      const dOk = typeof d === 'object' && d !== null && !Array.isArray(d);
      if (dOk) pieces.push([d.reasoning_content, 'reasoning'], [d.reasoning, 'reasoning'], [d.content, 'answer']);
      for (const [t, kind] of pieces) {
        if (typeof t === 'string' && t !== '') {
          out[kind] = true;
          if (o.text !== null) o.text += t;
        }
      }
      if (dOk && Array.isArray(d.tool_calls) && d.tool_calls.length > 0) out.answer = true;
    }
    return out;
  }
}
