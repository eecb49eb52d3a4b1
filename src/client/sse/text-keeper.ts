/**
 * The output text of a stream, kept (--keep-text, chat sessions) without a string per chunk.
 *
 * Content arrives as JSON string bodies, escapes and all. Decoding each into a string and
 * concatenating made two heap objects per chunk that lived as long as the request, so with
 * thousands of streams in flight they were copied by every young-generation collection (the
 * pauses land in the measured ITL). Instead the escaped bytes are appended to one growing
 * buffer and decoded once, at the end, by a single JSON.parse.
 */
import { ByteBuffer } from '../../util/byte-buffer.js';

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const encoder = new TextEncoder();

export class TextKeeper {
  private readonly bytes = new ByteBuffer(256);
  private cached: string | null = '';

  /** Appends the body of a JSON string literal (between its quotes, escapes intact): b[s, e). */
  appendJsonBody(b: Uint8Array, s: number, e: number): void {
    if (e <= s) return;
    this.bytes.append(b, s, e);
    this.cached = null;
  }

  /** Appends a decoded string (the slow path's pieces). */
  appendString(text: string): void {
    if (text.length === 0) return;
    const escaped = encoder.encode(JSON.stringify(text));
    this.bytes.append(escaped, 1, escaped.length - 1);
    this.cached = null;
  }

  get value(): string {
    if (this.cached !== null) return this.cached;
    const body = decoder.decode(this.bytes.bytes.subarray(0, this.bytes.length));
    try {
      this.cached = JSON.parse('"' + body + '"') as string;
    } catch {
      // Not valid JSON string content (a server that sent raw control characters): keep the
      // text as sent rather than lose it.
      this.cached = body;
    }
    return this.cached;
  }
}
