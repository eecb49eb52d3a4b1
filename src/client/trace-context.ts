/**
 * W3C trace context for each request (https://www.w3.org/TR/trace-context/): a fresh trace id
 * and parent span id per request, so a server's span (vLLM's `llm_request`) can be joined to the
 * request's record by trace id. Ids come from crypto random bytes drawn in blocks, so a request
 * costs one hex slice, not a system call; they are not seeded, since two runs of one seed must
 * not share trace ids in the user's collector.
 */
import { randomFillSync } from 'node:crypto';

/** 16 bytes of trace id and 8 of span id per request. */
const IDS_BYTES = 24;
const BLOCK_REQUESTS = 256;

export interface TraceIds {
  /** 32 lowercase hex digits; never all zero (invalid in W3C trace context). */
  traceId: string;
  /** 16 lowercase hex digits: the client's span, the server span's parent. */
  spanId: string;
}

export class TraceIdSource {
  private readonly block = Buffer.allocUnsafe(IDS_BYTES * BLOCK_REQUESTS);
  private at = this.block.length;

  next(): TraceIds {
    if (this.at >= this.block.length) {
      randomFillSync(this.block);
      this.at = 0;
    }
    const s = this.at;
    this.at += IDS_BYTES;
    // An all-zero id is invalid; the chance is 2^-128 (2^-64 for the span), but the fix is one byte.
    const b = this.block;
    if ((b.readUInt32LE(s) | b.readUInt32LE(s + 4) | b.readUInt32LE(s + 8) | b.readUInt32LE(s + 12)) === 0) b[s + 15] = 1;
    if ((b.readUInt32LE(s + 16) | b.readUInt32LE(s + 20)) === 0) b[s + 23] = 1;
    return { traceId: this.block.toString('hex', s, s + 16), spanId: this.block.toString('hex', s + 16, s + 24) };
  }
}

/**
 * The request's trace headers as raw HTTP lines: `traceparent` (version 00, sampled) and
 * `X-Request-Id` = the trace id, which vLLM takes as its request id with
 * `--enable-request-id-headers`, so the same id names the request in its logs.
 */
export function traceHeaderLines(ids: TraceIds): string {
  return `traceparent: 00-${ids.traceId}-${ids.spanId}-01\r\nx-request-id: ${ids.traceId}\r\n`;
}

const ID_KEY = Buffer.from('"id":');

/**
 * The server's response id (the `id` field of the first stream event, `cmpl-…`/`chatcmpl-…`)
 * from a body read, or null when the read has none. Looked for only until found, so it costs
 * one indexOf on the first read of a response. Only a plain string value is taken.
 */
export function responseIdIn(b: Uint8Array): string | null {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  const k = buf.indexOf(ID_KEY);
  if (k < 0) return null;
  let s = k + ID_KEY.length;
  while (buf[s] === 0x20) s++;
  if (buf[s] !== 0x22) return null;
  const e = buf.indexOf(0x22, s + 1);
  if (e < 0 || e - s > 257) return null;
  const id = buf.toString('latin1', s + 1, e);
  return id.includes('\\') ? null : id;
}
