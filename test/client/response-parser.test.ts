import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HttpParseError, ResponseParser, type ResponseHead } from '../../src/client/http1/response-parser.js';

interface Parsed {
  heads: ResponseHead[];
  body: string;
  completes: number;
  endedOk: boolean;
}

function parse(wire: Buffer, cuts: number[]): Parsed & { parser: ResponseParser } {
  const out: Parsed = { heads: [], body: '', completes: 0, endedOk: false };
  const pieces: Buffer[] = [];
  const parser = new ResponseParser({
    onHead: (h) => out.heads.push(h),
    onBody: (b) => pieces.push(Buffer.from(b)),
    onComplete: () => out.completes++,
  });
  let at = 0;
  for (const c of [...cuts, wire.length]) {
    if (c <= at) continue;
    parser.push(wire.subarray(at, c));
    at = c;
  }
  out.endedOk = parser.end();
  out.body = Buffer.concat(pieces).toString('utf8');
  return { ...out, parser };
}

type Framing = 'chunked' | 'length' | 'close';

function response(body: string[], framing: Framing, opts: { interim?: boolean; crlf?: boolean; ext?: boolean; trailers?: boolean; close?: boolean } = {}): Buffer {
  const nl = opts.crlf === false ? '\n' : '\r\n';
  let s = opts.interim ? `HTTP/1.1 100 Continue${nl}${nl}` : '';
  s += `HTTP/1.1 200 OK${nl}Content-Type: text/event-stream${nl}`;
  if (opts.close) s += `Connection: close${nl}`;
  const full = body.join('');
  if (framing === 'chunked') s += `Transfer-Encoding: chunked${nl}`;
  if (framing === 'length') s += `Content-Length: ${Buffer.byteLength(full)}${nl}`;
  s += nl;
  if (framing === 'chunked') {
    for (const piece of body) {
      if (piece.length === 0) continue;
      s += `${Buffer.byteLength(piece).toString(16)}${opts.ext ? ';name=val' : ''}\r\n${piece}\r\n`;
    }
    s += `0\r\n${opts.trailers ? 'X-Trailer: 1\r\n' : ''}\r\n`;
  } else s += full;
  return Buffer.from(s);
}

const bodyArb = fc.array(fc.string({ unit: 'grapheme', maxLength: 40 }), { maxLength: 8 });
const framingArb = fc.constantFrom<Framing>('chunked', 'length', 'close');

describe('ResponseParser', () => {
  it('recovers status, body and completion however the bytes are split (property)', () => {
    fc.assert(
      fc.property(
        bodyArb,
        framingArb,
        fc.record({ interim: fc.boolean(), crlf: fc.boolean(), ext: fc.boolean(), trailers: fc.boolean(), close: fc.boolean() }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (body, framing, opts, rawCuts) => {
          const wire = response(body, framing, opts);
          const cuts = rawCuts.map((c) => c % (wire.length + 1)).sort((a, b) => a - b);
          const p = parse(wire, cuts);
          expect(p.heads).toHaveLength(1);
          expect(p.heads[0]!.status).toBe(200);
          expect(p.body).toBe(body.join(''));
          expect(p.completes).toBe(1);
          expect(p.endedOk).toBe(true);
          // Reusable only when the framing delimits the body and nobody asked to close.
          expect(p.parser.reusable).toBe(framing !== 'close' && !opts.close);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('parses a vLLM-like chunked SSE response split at every byte boundary', () => {
    const wire = response(['data: {"a":1}\n\n', 'data: [DONE]\n\n'], 'chunked');
    for (let c = 0; c <= wire.length; c++) {
      const p = parse(wire, [c]);
      expect(p.body, `cut at ${c}`).toBe('data: {"a":1}\n\ndata: [DONE]\n\n');
      expect(p.completes).toBe(1);
    }
  });

  it('takes bare-LF chunk-size lines on the fast path as well as the slow one', () => {
    // "5\n" whole in one read takes the byte fast path; cut inside it, the string path.
    const wire = Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello\n10\n0123456789abcdef\r\n0\n\n');
    for (const cuts of [[], [wire.indexOf('5\n') + 1], [wire.indexOf('10\n') + 2]]) {
      const p = parse(wire, cuts);
      expect(p.body, `cuts ${cuts.join(',')}`).toBe('hello0123456789abcdef');
      expect(p.completes).toBe(1);
      expect(p.endedOk).toBe(true);
    }
  });

  it('reads headers case-insensitively and knows 204 has no body', () => {
    const p = parse(Buffer.from('HTTP/1.1 204 No Content\r\nX-Thing: A\r\nx-thing: B\r\n\r\n'), []);
    expect(p.heads[0]!.headers.get('x-thing')).toBe('A, B');
    expect(p.completes).toBe(1);
  });

  it('reports a response cut short, and malformed input, as such', () => {
    const wire = response(['hello world'], 'length');
    expect(parse(wire.subarray(0, wire.length - 3), []).endedOk).toBe(false);
    const chunked = response(['hello'], 'chunked');
    expect(parse(chunked.subarray(0, chunked.length - 5), []).endedOk).toBe(false);
    expect(() => parse(Buffer.from('SSH-2.0-OpenSSH\r\n\r\n'), [])).toThrow(HttpParseError);
    expect(() => parse(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'), [])).toThrow(/bad chunk size/);
    expect(() => parse(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\n'), [])).toThrow(/content-length/);
  });

  it('HTTP/1.0 closes unless keep-alive is said', () => {
    const p10 = parse(Buffer.from('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok'), []);
    expect(p10.parser.reusable).toBe(false);
    const p10ka = parse(Buffer.from('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok'), []);
    expect(p10ka.parser.reusable).toBe(true);
  });
});
