/** Small HTTP helpers for simulator tests: real requests over 127.0.0.1. */
import { connect } from 'node:net';

export interface SseResult {
  status: number;
  headers: Headers;
  /** data payloads in order, `[DONE]` included. */
  data: string[];
  /** arrival time (performance.now) of each data payload. */
  times: number[];
  sentMs: number;
}

export async function postSse(url: string, body: unknown): Promise<SseResult> {
  const sentMs = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const data: string[] = [];
  const times: number[] = [];
  const dec = new TextDecoder();
  let buf = '';
  if (!res.body) throw new Error('no body');
  for await (const chunk of res.body) {
    const now = performance.now();
    buf += dec.decode(chunk as Uint8Array, { stream: true });
    let i: number;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const ev = buf.slice(0, i);
      buf = buf.slice(i + 2);
      if (ev.startsWith('data: ')) {
        data.push(ev.slice(6));
        times.push(now);
      }
    }
  }
  return { status: res.status, headers: res.headers, data, times, sentMs };
}

export async function postJson(url: string, body: unknown): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, headers: res.headers, json: (await res.json()) as Record<string, unknown> };
}

/** Parsed JSON chunks (without [DONE]). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function chunks(r: SseResult): any[] {
  return r.data.filter((d) => d !== '[DONE]').map((d) => JSON.parse(d) as unknown);
}

/**
 * Sends `count` HTTP/1.1 requests one after another on ONE raw TCP socket and reports how many
 * responses arrived before the server closed the socket (to observe keep-alive behaviour).
 */
/** `count` requests one after another on one socket, each sent `gapMs` after the previous [DONE]. */
export function rawRequests(port: number, path: string, body: unknown, count: number, gapMs = 20): Promise<{ responses: number; closedByServer: boolean; raw: string }> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1');
    const payload = JSON.stringify(body);
    const req = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\nConnection: keep-alive\r\n\r\n${payload}`;
    let raw = '';
    let responses = 0;
    let closedByServer = false;
    sock.on('error', (err: NodeJS.ErrnoException) => {
      // a server that closes with our request unread resets the connection: closed all the same
      if (err.code !== 'ECONNRESET') return reject(err);
      closedByServer = true;
      resolve({ responses, closedByServer, raw });
    });
    sock.on('connect', () => sock.write(req));
    sock.on('data', (b) => {
      raw += b.toString();
      const done = raw.split('data: [DONE]').length - 1;
      if (done > responses) {
        responses = done;
        if (responses < count) {
          if (gapMs === 0) sock.write(req);
          else setTimeout(() => !sock.destroyed && sock.write(req), gapMs);
        }
        else setTimeout(() => { sock.destroy(); resolve({ responses, closedByServer, raw }); }, 150);
      }
    });
    sock.on('end', () => {
      closedByServer = true;
      sock.destroy();
      resolve({ responses, closedByServer, raw });
    });
  });
}

/** Sum of all samples named exactly `name` (any labels) in Prometheus text; NaN if absent. */
export function metric(text: string, name: string, labelFilter?: string): number {
  let sum = NaN;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const sp = line.lastIndexOf(' ');
    const key = line.slice(0, sp);
    const n = key.indexOf('{') >= 0 ? key.slice(0, key.indexOf('{')) : key;
    if (n !== name) continue;
    if (labelFilter && !key.includes(labelFilter)) continue;
    sum = (Number.isNaN(sum) ? 0 : sum) + Number(line.slice(sp + 1));
  }
  return sum;
}

export async function scrape(url: string): Promise<string> {
  return (await fetch(`${url}/metrics`)).text();
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A prompt of exactly n tokens for the simulator: n token ids (distinct per `salt`). */
export function tokenPrompt(n: number, salt: number): number[] {
  return Array.from({ length: n }, (_, i) => (salt * 100_003 + i * 7919) % 128_000);
}
