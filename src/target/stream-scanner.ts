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
 *   bytes ─► 'data:' at line start? ─► classifyLine(): one validating pass over the JSON that
 *            also finds the line end ─► NONE / CONTENT ─► next line blank ─► dispatch:
 *            contentTimes.push(nowMs)
 *
 * No string, object or closure is created per event. Everything else — a line split across
 * reads, comments, other fields, multi-line data, and payloads the classifier defers (usage,
 * finish_reason, errors, [DONE], malformed) — takes the general path: find the line end,
 * decode, JSON.parse. Bytes of a line or event that straddle reads are copied into growable
 * buffers (at most one line per read), never kept as views of the caller's buffer.
 */

import type { StreamScan, UsageCounts } from './stream-events.js';
import { CLS_CONTENT, CLS_SLOW, classifyLine, classifyPayload, scanEnd } from './sse/json-classify.js';
import { applySlowPayload, type EventSink } from './sse/slow-event.js';
import { ByteBuffer, FloatBuffer } from './sse/byte-buffer.js';

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const EMPTY = new Uint8Array(0);

export interface StreamScannerOptions {
  /** Keep the concatenated output text (content + reasoning); costs a JSON.parse per content event. */
  keepText?: boolean;
}

export class OpenAIStreamScanner implements StreamScan {
  private readonly times = new FloatBuffer();
  private readonly sink: EventSink;
  private readonly keepText: boolean;
  private readonly decoder = new TextDecoder('utf-8', { ignoreBOM: true });

  /** Bytes of a line not yet ended by CR/LF at the end of the last read. */
  private readonly line = new ByteBuffer();
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
  private readonly spanCopy = new ByteBuffer();
  private dataStr = '';

  constructor(opts: StreamScannerOptions = {}) {
    this.keepText = opts.keepText === true;
    this.sink = {
      usage: null,
      finishReason: null,
      sawDone: false,
      errorMessage: null,
      malformed: null,
      text: this.keepText ? '' : null,
    };
  }

  get contentEvents(): number {
    return this.times.length;
  }
  /** A view of the recorded times (shares memory with the scanner; call after end()). */
  contentTimes(): Float64Array {
    return this.times.view();
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
    return this.sink.text;
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
      const eol = findEol(b, i, n);
      this.line.append(b, i, eol);
      if (eol === n) return;
      this.processLine(this.line.bytes, 0, this.line.length, false, now);
      this.line.length = 0;
      i = this.skipEol(b, eol, n);
    }
    while (i < n) {
      const c = b[i];
      if (c === LF || c === CR) {
        this.dispatch(now); // blank line
        i = this.skipEol(b, i, n);
        continue;
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
            this.fastCode = code;
            this.spanBuf = b;
            this.spanS = vs;
            this.spanE = q;
            this.dataLines = 1;
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
    this.onData(buf, vs, e, own);
  }

  private onData(buf: Uint8Array, vs: number, ve: number, own: boolean): void {
    if (this.dataLines === 0) {
      const code = classifyPayload(buf, vs, ve);
      if (code !== CLS_SLOW) {
        this.fastCode = code;
        if (own) {
          this.spanBuf = buf;
          this.spanS = vs;
          this.spanE = ve;
        } else this.copySpan(buf, vs, ve);
      } else {
        this.fastCode = -1;
        this.dataStr = this.decoder.decode(buf.subarray(vs, ve));
      }
    } else {
      if (this.fastCode >= 0) {
        this.dataStr = this.decoder.decode(this.spanBuf.subarray(this.spanS, this.spanE));
        this.fastCode = -1;
      }
      this.dataStr += '\n' + this.decoder.decode(buf.subarray(vs, ve));
    }
    this.dataLines++;
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
    let content: boolean;
    if (this.fastCode >= 0) {
      content = this.fastCode === CLS_CONTENT;
      if (content && this.keepText) {
        content = applySlowPayload(this.sink, this.decoder.decode(this.spanBuf.subarray(this.spanS, this.spanE)));
      }
    } else {
      content = applySlowPayload(this.sink, this.dataStr);
    }
    if (content) this.times.push(now);
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

/** First CR or LF in b[i, n), or n. */
function findEol(b: Uint8Array, i: number, n: number): number {
  while (i < n) {
    const c = b[i];
    if (c === LF || c === CR) return i;
    i++;
  }
  return n;
}
