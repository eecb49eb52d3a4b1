/**
 * `OpenAIStreamScanner`: the SSE scanner of OpenAI-compatible streams (`/v1/completions`,
 * `/v1/chat/completions`). It is fed raw network reads and keeps what a RequestRecord needs:
 * the arrival time of every content event, usage, finish reason, [DONE], errors.
 *
 * SSE framing follows the WHATWG spec (lines end in LF, CR or CRLF; `data:` with one optional
 * space; multi-line data joined by LF; `:` comments and other fields ignored; an event is
 * dispatched on a blank line; a leading UTF-8 BOM is dropped). Payload meaning is in
 * sse/slow-event.ts.
 *
 * Hot path (one typical event, `data: {...}\n\n`, entirely inside one read):
 *
 *   line start ─► matches the event template (sse/event-template.ts: same bytes as the last
 *   content event but for the content string)? ─► yes, and "\n\n" follows: record nowMs
 *              │ no
 *              └► 'data:'? ─► classifyLine() (sse/json-classify.ts): one validating pass over the
 *                 JSON that also finds the line end ─► NONE / CONTENT (and learn the template)
 *
 * Each content event is also told apart as reasoning (`reasoning_content`, `reasoning`) or answer
 * (text, content, tool calls): the classifier reports the kinds it saw and the template keeps the
 * kind of its string's path, so the plain answer event costs one more compare (see mark()).
 *
 * No string, object or closure is created per event. Everything else — a line split across
 * reads, comments, other fields, multi-line data, and payloads the classifier defers (usage,
 * finish_reason, errors, [DONE], malformed) — takes the general path: find the line end,
 * decode, JSON.parse. Bytes of a line or event that straddle reads are copied into growable
 * buffers (at most one line per read), never kept as views of the caller's buffer.
 */

import type { StreamScan, UsageCounts } from './stream-events.js';
import { CLS_CONTENT, CLS_NONE, CLS_SLOW, KIND_ANSWER, KIND_REASONING, classifyLine, classifyPayload, contentInfo, scanEnd } from './sse/json-classify.js';
import { EventTemplate } from './sse/event-template.js';
import { applySlowPayload, type EventSink } from './sse/slow-event.js';
import { TextKeeper } from './sse/text-keeper.js';
import { ByteBuffer, FloatBuffer } from '../util/byte-buffer.js';

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const EMPTY = new Uint8Array(0);
/**
 * One decoder for all scanners: only ever used without `stream: true`, so it keeps no state
 * between calls. `ignoreBOM`: a U+FEFF inside a payload is text, not a BOM (the stream's
 * leading BOM is dropped from the bytes, see stripBom).
 */
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

export interface StreamScannerOptions {
  /**
   * Keep the concatenated output text (content + reasoning). Costs decoding each content string,
   * a visible share of the scanner's speed (docs/performance.md §1).
   */
  keepText?: boolean;
}

export class OpenAIStreamScanner implements StreamScan {
  private readonly times = new FloatBuffer();
  /** Reasoning events and the first reasoning / answer event's time (-1: none yet). */
  private reasoning = 0;
  private firstReasoning = -1;
  private firstAnswer = -1;
  private readonly sink: EventSink;
  private readonly keepText: boolean;

  /** Bytes of a line not yet ended by CR/LF at the end of the last read. */
  private readonly line = new ByteBuffer(0);
  /** The last read ended in CR: an LF at the start of the next read belongs to it. */
  private pendingCR = false;
  /** The leading BOM check is done; until then up to 2 bytes wait in `head`. */
  private bomDone = false;
  private head: Uint8Array | null = null;

  // The event being assembled. Either one data line classified fast (`fastCode` ≥ 0, its bytes
  // at spanBuf[spanS, spanE)) or the decoded data so far in `dataStr` (`fastCode` = -1).
  private dataLines = 0;
  private fastCode = -1;
  private spanBuf: Uint8Array = EMPTY;
  private spanS = 0;
  private spanE = 0;
  private readonly spanCopy = new ByteBuffer(0);
  private dataStr = '';
  /** KIND_* bits of the pending fast event's content. */
  private kinds = 0;
  /** When the pending fast event has exactly one content string: its bytes relative to spanS. */
  private hasStr = false;
  private strRelS = 0;
  private strRelE = 0;
  private readonly tpl = new EventTemplate();
  /** Events dispatched after `data: [DONE]`: ignored (the stream is over), only counted. */
  private afterDone = 0;

  constructor(opts: StreamScannerOptions = {}) {
    this.keepText = opts.keepText === true;
    this.sink = {
      usage: null,
      finishReason: null,
      sawDone: false,
      errorMessage: null,
      malformed: null,
      text: this.keepText ? new TextKeeper() : null,
    };
  }

  get contentEvents(): number {
    return this.times.length;
  }
  /** Arrival times of the content events (exact size; may share memory with the scanner: call after end()). */
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
  get usage(): UsageCounts | null {
    return this.sink.usage;
  }
  get finishReason(): string | null {
    return this.sink.finishReason;
  }
  get sawDone(): boolean {
    return this.sink.sawDone;
  }
  get errorMessage(): string | null {
    return this.sink.errorMessage;
  }
  get malformed(): string | null {
    return this.sink.malformed;
  }
  get text(): string | null {
    return this.sink.text?.value ?? null;
  }
  get eventsAfterDone(): number {
    return this.afterDone;
  }

  push(bytes: Uint8Array, nowMs: number): void {
    if (!this.bomDone) {
      bytes = this.stripBom(bytes);
      if (bytes.length === 0) return;
    }
    this.scan(bytes, nowMs);
  }

  end(nowMs: number): void {
    if (!this.bomDone) {
      this.bomDone = true;
      const h = this.head;
      this.head = null;
      if (h !== null) this.scan(h, nowMs);
    }
    if (this.line.length > 0) {
      this.processLine(this.line.bytes, 0, this.line.length, false, nowMs);
      this.line.length = 0;
    }
    this.pendingCR = false;
    this.dispatch(nowMs);
  }

  private scan(b: Uint8Array, now: number): void {
    const n = b.length;
    let i = 0;
    if (this.pendingCR && n > 0) {
      this.pendingCR = false;
      if (b[0] === LF) i = 1;
    }
    if (this.line.length > 0) {
      // finish the line begun in an earlier read
      const eol = firstEol(b, i, n);
      if (eol === n) {
        this.line.append(b, i, n);
        return;
      }
      this.line.append(b, i, eol + 1); // with its terminator, which the template match wants
      this.carriedLine(now);
      this.line.length = 0;
      i = this.skipEol(b, eol, n);
    }
    let view: DataView | null = null; // made on first use: one allocation per read at most
    while (i < n) {
      const c = b[i];
      if (c === LF || c === CR) {
        this.dispatch(now); // blank line
        i = this.skipEol(b, i, n);
        continue;
      }
      if (c === this.tpl.first && this.dataLines === 0) {
        view ??= new DataView(b.buffer, b.byteOffset, b.byteLength);
        const t = this.tpl;
        const k = t.match(b, view, i, n);
        if (k === -2) {
          // Cut by the end of the read. -2 means every byte so far matched pre, a string body
          // or suf, none of which holds CR or LF: keep the rest for the next read.
          this.line.append(b, i, n);
          break;
        }
        if (k >= 0) {
          if (b[k] === LF && k + 1 < n && b[k + 1] === LF) {
            // the whole event, "\n\n" included: no pending state at all
            if (t.strE > t.strS) this.content(t.kind, b, t.strS, t.strE, now);
            i = k + 2;
            continue;
          }
          this.pend(t.strE > t.strS ? CLS_CONTENT : CLS_NONE, t.kind, b, i + t.payloadOff, k, t.strS, t.strE);
          i = this.skipEol(b, k, n);
          continue;
        }
      }
      if (
        c === 0x64 && // 'data:' fast path, first data line of an event only
        this.dataLines === 0 &&
        i + 5 <= n &&
        b[i + 1] === 0x61 &&
        b[i + 2] === 0x74 &&
        b[i + 3] === 0x61 &&
        b[i + 4] === COLON
      ) {
        let vs = i + 5;
        if (vs < n && b[vs] === SPACE) vs++;
        const code = classifyLine(b, vs, n);
        if (code !== CLS_SLOW) {
          const q = scanEnd();
          if (q < n) {
            // b[q] is CR or LF: a whole line, classified
            const one = contentInfo.strings === 1 && !contentInfo.tools;
            if (one && !this.sink.sawDone) this.tpl.learn(b, i, vs, contentInfo.strS, contentInfo.strE, q, contentInfo.strKind);
            this.pend(code, contentInfo.kinds, b, vs, q, one ? contentInfo.strS : -1, contentInfo.strE);
            i = this.skipEol(b, q, n);
            continue;
          }
        }
      }
      const eol = findEol(b, i, n);
      if (eol === n) {
        this.line.append(b, i, n);
        break;
      }
      this.processLine(b, i, eol, true, now);
      i = this.skipEol(b, eol, n);
    }
    // The caller may reuse its buffer: keep a pending fast line's bytes in our own.
    if (this.dataLines > 0 && this.fastCode >= 0 && this.spanBuf === b) this.copySpan(b, this.spanS, this.spanE);
  }

  /** The line in `line` (ended by its terminator byte) is complete. */
  private carriedLine(now: number): void {
    const l = this.line;
    const lb = l.bytes;
    const t = this.tpl;
    if (lb[0] === t.first && this.dataLines === 0) {
      const k = t.match(lb, l.view, 0, l.length);
      if (k === l.length - 1) {
        this.pend(t.strE > t.strS ? CLS_CONTENT : CLS_NONE, t.kind, lb, t.payloadOff, k, t.strS, t.strE);
        this.copySpan(lb, t.payloadOff, k);
        return;
      }
    }
    this.processLine(lb, 0, l.length - 1, false, now);
  }

  /** Index after the line terminator at `at` (CR, LF or CRLF); notes a CR at the end of the read. */
  private skipEol(b: Uint8Array, at: number, n: number): number {
    if (b[at] === CR) {
      if (at + 1 < n) return b[at + 1] === LF ? at + 2 : at + 1;
      this.pendingCR = true;
      return n;
    }
    return at + 1;
  }

  /** One complete line `buf[s, e)` without its terminator. `own` = buf is the caller's read. */
  private processLine(buf: Uint8Array, s: number, e: number, own: boolean, now: number): void {
    if (s === e) {
      this.dispatch(now);
      return;
    }
    if (buf[s] === COLON) return; // comment
    let colon = s;
    while (colon < e && buf[colon] !== COLON) colon++;
    if (colon - s !== 4 || buf[s] !== 0x64 || buf[s + 1] !== 0x61 || buf[s + 2] !== 0x74 || buf[s + 3] !== 0x61) return; // not `data`
    let vs = colon < e ? colon + 1 : e;
    if (vs < e && buf[vs] === SPACE) vs++;
    this.onData(buf, s, vs, e, own);
  }

  /** A data line buf[ls, ve) with its value at buf[vs, ve). */
  private onData(buf: Uint8Array, ls: number, vs: number, ve: number, own: boolean): void {
    if (this.dataLines === 0) {
      const code = classifyPayload(buf, vs, ve);
      if (code !== CLS_SLOW) {
        const one = contentInfo.strings === 1 && !contentInfo.tools;
        if (one && !this.sink.sawDone) this.tpl.learn(buf, ls, vs, contentInfo.strS, contentInfo.strE, ve, contentInfo.strKind);
        this.pend(code, contentInfo.kinds, buf, vs, ve, one ? contentInfo.strS : -1, contentInfo.strE);
        if (!own) this.copySpan(buf, vs, ve);
        return;
      }
      this.fastCode = -1;
      this.dataStr = decoder.decode(buf.subarray(vs, ve));
    } else {
      if (this.fastCode >= 0) {
        this.dataStr = decoder.decode(this.spanBuf.subarray(this.spanS, this.spanE));
        this.fastCode = -1;
      }
      this.dataStr += '\n' + decoder.decode(buf.subarray(vs, ve));
    }
    this.dataLines++;
  }

  /**
   * A first data line classified fast: payload b[s, e) with content of KIND_* bits `kinds`; its
   * only content string, if any (strS ≥ 0), at b[strS, strE).
   */
  private pend(code: number, kinds: number, b: Uint8Array, s: number, e: number, strS: number, strE: number): void {
    this.fastCode = code;
    this.kinds = kinds;
    this.dataLines = 1;
    this.spanBuf = b;
    this.spanS = s;
    this.spanE = e;
    this.hasStr = strS >= 0;
    this.strRelS = strS - s;
    this.strRelE = strE - s;
  }

  /** A content event of KIND_* bits `kinds` at `now`; its text, when kept, is the JSON string body b[s, e). */
  private content(kinds: number, b: Uint8Array, s: number, e: number, now: number): void {
    this.mark(kinds, now);
    this.sink.text?.appendJsonBody(b, s, e);
  }

  /**
   * Counts a content event. The plain answer event, once the first is seen, costs one push and
   * two compares: the reasoning bookkeeping stays off that path.
   */
  private mark(kinds: number, now: number): void {
    this.times.push(now);
    if (kinds === KIND_ANSWER && this.firstAnswer >= 0) return;
    if ((kinds & KIND_ANSWER) !== 0 && this.firstAnswer < 0) this.firstAnswer = now;
    if ((kinds & KIND_REASONING) !== 0) {
      this.reasoning++;
      if (this.firstReasoning < 0) this.firstReasoning = now;
    }
  }

  private copySpan(buf: Uint8Array, s: number, e: number): void {
    const c = this.spanCopy;
    c.length = 0;
    c.append(buf, s, e);
    this.spanBuf = c.bytes;
    this.spanS = 0;
    this.spanE = c.length;
  }

  private dispatch(now: number): void {
    if (this.dataLines === 0) return;
    if (this.sink.sawDone) this.afterDone++;
    else if (this.fastCode === CLS_CONTENT) {
      if (!this.keepText) this.mark(this.kinds, now);
      else if (this.hasStr) this.content(this.kinds, this.spanBuf, this.spanS + this.strRelS, this.spanS + this.strRelE, now);
      else this.mark(applySlowPayload(this.sink, decoder.decode(this.spanBuf.subarray(this.spanS, this.spanE))), now);
    } else if (this.fastCode !== CLS_NONE) {
      const kinds = applySlowPayload(this.sink, this.dataStr);
      if (kinds !== 0) this.mark(kinds, now);
      // The stream is over: no later event may take the template's fast path, which skips dispatch.
      if (this.sink.sawDone) this.tpl.forget();
    }
    this.dataLines = 0;
    this.fastCode = -1;
    this.spanBuf = EMPTY;
    this.dataStr = '';
  }

  /** Drop a UTF-8 BOM at the very start of the stream, which may arrive split across reads. */
  private stripBom(bytes: Uint8Array): Uint8Array {
    let all = bytes;
    if (this.head !== null) {
      all = new Uint8Array(this.head.length + bytes.length);
      all.set(this.head);
      all.set(bytes, this.head.length);
      this.head = null;
    }
    const k = Math.min(3, all.length);
    for (let j = 0; j < k; j++) {
      if (all[j] !== BOM[j]) {
        this.bomDone = true;
        return all;
      }
    }
    if (all.length < 3) {
      this.head = all.slice();
      return EMPTY;
    }
    this.bomDone = true;
    return all.subarray(3);
  }
}

const BOM = [0xef, 0xbb, 0xbf];

/**
 * First CR or LF in b[i, n), or n: a native search for LF, then a loop for CR before it only.
 * Used for the one line per read that was cut by the previous read.
 */
function firstEol(b: Uint8Array, i: number, n: number): number {
  const lf = b.indexOf(LF, i);
  const stop = lf < 0 ? n : lf;
  for (let j = i; j < stop; j++) if (b[j] === CR) return j;
  return stop;
}

/** First CR or LF in b[i, n), or n. */
function findEol(b: Uint8Array, i: number, n: number): number {
  while (i < n) {
    const c = b[i];
    if (c === LF || c === CR) return i;
    i++;
  }
  return n;
}
