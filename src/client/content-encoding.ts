/**
 * Content-Encoding of an answer. The client asks for `identity` (http-client.ts): per-token
 * timing needs each event the moment it is sent, and a compressing server or proxy buffers
 * events into its compressor's blocks. A compressed event stream is therefore classified
 * (`not_event_stream`, with the encoding named), while a non-streaming body, read whole anyway,
 * is decoded (docs/records.md §Content encoding).
 */
import { brotliDecompressSync, constants, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';

/** Whether a Content-Encoding header value means the body is not plain bytes. */
export function isEncoded(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== '' && !/^\s*identity\s*$/i.test(value);
}

/** The not_event_stream message of a compressed event stream. */
export function compressedStreamMessage(encoding: string): string {
  return `content-encoding ${encoding.trim()} although infermeter asked for identity: a compressed event stream cannot be timed per token; turn compression off for text/event-stream on the server or proxy`;
}

export interface DecodedBody {
  text: string;
  /** Why the body could not be decoded; null when it was (or needed no decoding). */
  error: string | null;
}

/**
 * The body as text, decoded from gzip, deflate or br. A body cut short (an error body is kept only
 * up to its first 8 KiB) decodes as far as it goes.
 */
export function decodeBody(body: Buffer, encoding: string | undefined): DecodedBody {
  if (!isEncoded(encoding) || body.length === 0) return { text: body.toString('utf8'), error: null };
  const codings = encoding!.toLowerCase().split(',').map((c) => c.trim()).filter((c) => c !== '' && c !== 'identity');
  let b = body;
  try {
    // Codings are listed in the order applied: undo them last first (RFC 9110 §8.4).
    for (const c of codings.reverse()) b = decodeOne(b, c);
  } catch (err) {
    return { text: '', error: `could not decode the content-encoding ${encoding!.trim()} body: ${(err as Error).message}` };
  }
  return { text: b.toString('utf8'), error: null };
}

const lenient = { finishFlush: constants.Z_SYNC_FLUSH };

function decodeOne(b: Buffer, coding: string): Buffer {
  if (coding === 'gzip' || coding === 'x-gzip') return gunzipSync(b, lenient);
  if (coding === 'deflate') {
    // "deflate" is zlib-wrapped by the standard, raw by some servers.
    try {
      return inflateSync(b, lenient);
    } catch {
      return inflateRawSync(b, lenient);
    }
  }
  if (coding === 'br') return brotliDecompressSync(b, { finishFlush: constants.BROTLI_OPERATION_FLUSH });
  throw new Error(`unsupported coding "${coding}"`);
}
