/**
 * An incremental HTTP/1.1 response parser for the streaming client's hot path.
 *
 * Why not node:http: per network read node:http runs its parser, an IncomingMessage stream and
 * its events before our code sees the bytes; at 1,000 streams that machinery, not the SSE scan,
 * is most of the client's CPU and of its timestamp error (docs/performance.md, section 3). This
 * parser does only what a client of OpenAI-compatible servers needs: a status line and headers
 * (kept as a small map), then the body by its framing — chunked (with extensions and trailers),
 * Content-Length, or until the connection closes — handed on as subarrays of the read, no copy.
 *
 *   head ──► 1xx? ──► head again
 *     │
 *     ├─ chunked ──► size line ──► data ──► CRLF ──► size line … ──► 0 ──► trailers ──► done
 *     ├─ Content-Length ──► data ──► done
 *     └─ neither ──► data until end() ──► done
 */

export interface ResponseHead {
  status: number;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Map<string, string>;
  /** Whether the connection may carry another request after this response. */
  keepAlive: boolean;
}

export interface ResponseSink {
  onHead(head: ResponseHead): void;
  /** A piece of the (de-chunked) body: a view into the read buffer, valid during the call. */
  onBody(bytes: Uint8Array): void;
  onComplete(): void;
}

export class HttpParseError extends Error {}

const MAX_HEAD_BYTES = 64 * 1024;
const CR = 13;
const LF = 10;

const enum State {
  Head,
  ChunkSize,
  ChunkData,
  ChunkDataEnd,
  Trailers,
  Length,
  UntilClose,
  Done,
}

export class ResponseParser {
  private state = State.Head;
  private line = '';
  private head = '';
  private left = 0;
  private keepAlive = false;
  /** Whether the request was HEAD-like (no body whatever the headers say); we only send POST. */
  constructor(private readonly sink: ResponseSink) {}

  get done(): boolean {
    return this.state === State.Done;
  }

  /** True once a status line has been parsed (a final one, not 1xx). */
  get started(): boolean {
    return this.state !== State.Head;
  }

  get reusable(): boolean {
    return this.state === State.Done && this.keepAlive;
  }

  /** Feeds one read. Throws HttpParseError on a malformed response. */
  push(b: Uint8Array): void {
    let i = 0;
    const n = b.length;
    while (i < n) {
      switch (this.state) {
        case State.Head: {
          const k = indexOfHeadEnd(b, i, this.head);
          if (k < 0) {
            this.head += latin1(b, i, n);
            if (this.head.length > MAX_HEAD_BYTES) throw new HttpParseError('response headers larger than 64 KiB');
            return;
          }
          // k: index just past the blank line in b (the head may have started in earlier reads).
          this.head += latin1(b, i, k);
          i = k;
          const text = this.head;
          this.head = '';
          this.onHeadText(text);
          break;
        }
        case State.ChunkSize:
        case State.Trailers: {
          // Hot path: an SSE server sends one chunk per event, so a size line per event. When the
          // whole line "HEX\r\n" is in this read, read it from the bytes without making a string.
          if (this.state === State.ChunkSize && this.line === '') {
            const end = plainSizeLineEnd(b, i);
            if (end > 0) {
              this.left = hexValue(b, i, end);
              i = end + (b[end] === CR ? 2 : 1);
              this.state = this.left === 0 ? State.Trailers : State.ChunkData;
              break;
            }
          }
          const k = b.indexOf(LF, i);
          if (k < 0) {
            this.line += latin1(b, i, n);
            if (this.line.length > 8192) throw new HttpParseError('chunk-size or trailer line too long');
            return;
          }
          this.line += latin1(b, i, k);
          i = k + 1;
          const line = this.line.endsWith('\r') ? this.line.slice(0, -1) : this.line;
          this.line = '';
          if (this.state === State.Trailers) {
            if (line === '') this.finish();
            break;
          }
          const semi = line.indexOf(';');
          const hex = (semi < 0 ? line : line.slice(0, semi)).trim();
          if (!/^[0-9a-fA-F]+$/.test(hex)) throw new HttpParseError(`bad chunk size "${line.slice(0, 40)}"`);
          this.left = parseInt(hex, 16);
          this.state = this.left === 0 ? State.Trailers : State.ChunkData;
          break;
        }
        case State.ChunkData: {
          const m = Math.min(this.left, n - i);
          this.sink.onBody(b.subarray(i, i + m));
          i += m;
          this.left -= m;
          if (this.left === 0) {
            this.state = State.ChunkDataEnd;
            this.left = 2;
          }
          break;
        }
        case State.ChunkDataEnd: {
          // The CRLF after a chunk's data (tolerating a bare LF).
          const c = b[i]!;
          if (this.left === 2 && c === CR) {
            this.left = 1;
            i++;
          } else if (c === LF) {
            this.state = State.ChunkSize;
            i++;
          } else throw new HttpParseError('missing CRLF after chunk data');
          break;
        }
        case State.Length: {
          const m = Math.min(this.left, n - i);
          this.sink.onBody(b.subarray(i, i + m));
          i += m;
          this.left -= m;
          if (this.left === 0) this.finish();
          break;
        }
        case State.UntilClose:
          this.sink.onBody(b.subarray(i));
          return;
        case State.Done:
          // Bytes after a complete response: the connection is not safe to reuse.
          this.keepAlive = false;
          return;
      }
    }
  }

  /** The connection ended. Completes a close-delimited body; otherwise the response was cut short. */
  end(): boolean {
    if (this.state === State.UntilClose) {
      this.finish();
      return true;
    }
    return this.state === State.Done;
  }

  private onHeadText(text: string): void {
    const lines = text.split(/\r?\n/);
    const m = /^HTTP\/1\.([01]) (\d{3})/.exec(lines[0] ?? '');
    if (!m) throw new HttpParseError(`not an HTTP/1.x status line: "${(lines[0] ?? '').slice(0, 60)}"`);
    const minor = m[1];
    const status = Number(m[2]);
    const headers = new Map<string, string>();
    for (let j = 1; j < lines.length; j++) {
      const l = lines[j]!;
      if (l === '') continue;
      const c = l.indexOf(':');
      if (c <= 0) throw new HttpParseError(`malformed header line "${l.slice(0, 60)}"`);
      const name = l.slice(0, c).trim().toLowerCase();
      const value = l.slice(c + 1).trim();
      const prev = headers.get(name);
      headers.set(name, prev === undefined ? value : `${prev}, ${value}`);
    }
    if (status >= 100 && status < 200) return; // interim response (100 Continue, 103 Early Hints): the real one follows
    const connection = (headers.get('connection') ?? '').toLowerCase();
    this.keepAlive = minor === '1' ? !connection.includes('close') : connection.includes('keep-alive');
    const te = (headers.get('transfer-encoding') ?? '').toLowerCase();
    const cl = headers.get('content-length');
    if (status === 204 || status === 304) this.state = State.Done;
    else if (te.includes('chunked')) this.state = State.ChunkSize;
    else if (cl !== undefined) {
      if (!/^\d+$/.test(cl)) throw new HttpParseError(`bad content-length "${cl}"`);
      this.left = Number(cl);
      this.state = this.left === 0 ? State.Done : State.Length;
    } else {
      this.state = State.UntilClose;
      this.keepAlive = false;
    }
    this.sink.onHead({ status, headers, keepAlive: this.keepAlive });
    if (this.state === State.Done) this.sink.onComplete();
  }

  private finish(): void {
    this.state = State.Done;
    this.sink.onComplete();
  }
}

/** Value of a hex digit byte, or -1. */
function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48; // 0-9
  const l = c | 0x20; // fold A-F to a-f
  return l >= 97 && l <= 102 ? l - 87 : -1;
}

/**
 * Where the hex digits of a size line starting at `from` end, if the line is just
 * "HEX\r\n" or "HEX\n" and lies wholly in `b` (and has at most 12 digits); else -1, and the
 * general path (extensions, whitespace, a line split across reads, errors) takes it.
 */
function plainSizeLineEnd(b: Uint8Array, from: number): number {
  let j = from;
  while (j < b.length && j - from <= 12 && hexDigit(b[j]!) >= 0) j++;
  if (j === from || j - from > 12 || j >= b.length) return -1;
  if (b[j] === LF) return j;
  return b[j] === CR && j + 1 < b.length && b[j + 1] === LF ? j : -1;
}

function hexValue(b: Uint8Array, from: number, to: number): number {
  let v = 0;
  for (let j = from; j < to; j++) v = v * 16 + hexDigit(b[j]!);
  return v;
}

function latin1(b: Uint8Array, from: number, to: number): string {
  return Buffer.from(b.buffer, b.byteOffset + from, to - from).toString('latin1');
}

/**
 * Index just past the first blank line (CRLFCRLF or LFLF) of the head, which may have begun in
 * `prior` (earlier reads); -1 when the head is not complete in `b`.
 */
function indexOfHeadEnd(b: Uint8Array, from: number, prior: string): number {
  // The terminator may straddle reads: look back into the last 3 characters of what came before.
  const tail = prior.slice(-3);
  for (let i = from; i < b.length; i++) {
    if (b[i] !== LF) continue;
    // previous bytes, possibly from `prior`
    const p1 = i - 1 >= from ? b[i - 1]! : tail.charCodeAt(tail.length - (from - (i - 1)));
    if (p1 === LF) return i + 1;
    if (p1 === CR) {
      const p2 = i - 2 >= from ? b[i - 2]! : tail.charCodeAt(tail.length - (from - (i - 2)));
      if (p2 === LF) return i + 1;
    }
  }
  return -1;
}
