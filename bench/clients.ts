/**
 * The streaming clients compared by the benchmarks. Each does the same work per stream:
 * receive, take one clock reading per network read, find every SSE event, decide whether it
 * carries content and keep its arrival time.
 *
 * - plain:         fetch + TextDecoder + split on blank lines + JSON.parse per event (the
 *                  baseline named in issue 5; written the way one would, not made slow)
 * - fetch+scanner: fetch (undici) + OpenAIStreamScanner
 * - http+scanner:  node:http + OpenAIStreamScanner (what src/client/http-client.ts does)
 * - raw+scanner:   a raw net socket with a minimal HTTP/1.1 parser (bench/raw-client.ts,
 *                  benchmark-only prototype) + OpenAIStreamScanner
 * - http+count:    node:http + a byte loop counting blank lines: no classification
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { OpenAIStreamScanner } from '../src/client/stream-scanner.js';
import { rawPost } from './raw-client.js';
import { ConnectionPool } from '../src/client/http1/connection-pool.js';
import { ResponseParser } from '../src/client/http1/response-parser.js';

/** Content events seen by one stream. */
export type StreamClient = (url: string) => Promise<number>;

/** The plain parser alone, on one stream's reads (also used by the in-memory benchmark). */
export class PlainParser {
  private readonly decoder = new TextDecoder();
  private buf = '';
  readonly times: number[] = [];
  done = false;

  push(bytes: Uint8Array, now: number): void {
    this.buf += this.decoder.decode(bytes, { stream: true });
    let start = 0;
    for (;;) {
      const k = this.buf.indexOf('\n\n', start);
      if (k < 0) break;
      const ev = this.buf.slice(start, k);
      start = k + 2;
      if (!ev.startsWith('data: ')) continue;
      const data = ev.slice(6);
      if (data === '[DONE]') {
        this.done = true;
        continue;
      }
      const o = JSON.parse(data) as { choices?: { text?: string; delta?: { content?: string | null } }[] };
      const c = o.choices?.[0];
      if (c && (c.delta?.content || c.text)) this.times.push(now);
    }
    this.buf = this.buf.slice(start);
  }
}

export const plainFetch: StreamClient = async (url) => {
  const res = await fetch(url);
  if (!res.body) throw new Error('no body');
  const p = new PlainParser();
  const reader = res.body.getReader();
  for (;;) {
    const r = await reader.read();
    if (r.done) break;
    p.push(r.value, performance.now());
  }
  return p.times.length;
};

export const scannerFetch: StreamClient = async (url) => {
  const res = await fetch(url);
  if (!res.body) throw new Error('no body');
  const s = new OpenAIStreamScanner();
  const reader = res.body.getReader();
  for (;;) {
    const r = await reader.read();
    if (r.done) break;
    s.push(r.value, performance.now());
  }
  s.end(performance.now());
  return s.contentEvents;
};

const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });

function httpStream(url: string, onData: (b: Buffer) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      res.on('data', onData);
      res.on('end', resolve);
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

export const scannerHttp: StreamClient = async (url) => {
  const s = new OpenAIStreamScanner();
  await httpStream(url, (b) => s.push(b, performance.now()));
  s.end(performance.now());
  return s.contentEvents;
};

export const countHttp: StreamClient = async (url) => {
  let events = 0;
  let prevLF = false;
  const times: number[] = [];
  await httpStream(url, (b) => {
    times.push(performance.now());
    for (let i = 0; i < b.length; i++) {
      const lf = b[i] === 10;
      if (lf && prevLF) events++;
      prevLF = lf;
    }
  });
  return events - 4; // role delta, finish, usage, [DONE]
};

export const scannerRaw: StreamClient = async (url) => {
  const u = new URL(url);
  const s = new OpenAIStreamScanner();
  await rawPost(Number(u.port), u.pathname, JSON.stringify({ max_tokens: Number(u.searchParams.get('events')) }), (b, now) => s.push(b, now));
  s.end(performance.now());
  return s.contentEvents;
};

const http1Pools = new Map<string, ConnectionPool>();

/**
 * One request over the transport of src/client/http-client.ts (src/client/http1/): pooled
 * keep-alive connections, the incremental response parser, one clock read per network read.
 */
export function http1Request(url: URL, method: 'GET' | 'POST', body: string | null, onBody: (b: Uint8Array, now: number) => void): Promise<void> {
  let pool = http1Pools.get(url.host);
  if (!pool) http1Pools.set(url.host, (pool = new ConnectionPool(url)));
  const p = pool;
  return new Promise((resolve, reject) => {
    let readAt = 0;
    const { conn } = p.acquire(true);
    const parser = new ResponseParser({
      onHead: () => {},
      onBody: (b) => onBody(b, readAt),
      onComplete: () => {
        if (parser.reusable) p.release(conn);
        else conn.destroy();
        resolve();
      },
    });
    conn.owner = {
      onData: (b) => {
        readAt = performance.now();
        parser.push(b);
      },
      onClose: (err) => reject(err ?? new Error('closed')),
    };
    const payload = body === null ? Buffer.alloc(0) : Buffer.from(body);
    const head = `${method} ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n${body === null ? '' : `content-type: application/json\r\ncontent-length: ${payload.length}\r\n`}\r\n`;
    conn.socket.write(Buffer.concat([Buffer.from(head, 'latin1'), payload]));
  });
}

/** infermeter's transport + the scanner. */
export const scannerHttp1: StreamClient = async (url) => {
  const s = new OpenAIStreamScanner();
  await http1Request(new URL(url), 'GET', null, (b, now) => s.push(b, now));
  s.end(performance.now());
  return s.contentEvents;
};

export const CLIENTS: Record<string, StreamClient> = {
  plain: plainFetch,
  infermeter: scannerHttp1,
  'fetch+scanner': scannerFetch,
  'http+scanner': scannerHttp,
  'raw+scanner': scannerRaw,
  'http+count': countHttp,
};
