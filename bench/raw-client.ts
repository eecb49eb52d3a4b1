/**
 * Benchmark-only prototype: a minimal HTTP/1.1 streaming client on a raw `net` socket (no
 * `node:http`), to measure how much of the client's per-read cost is `node:http`'s machinery
 * (IncomingMessage streams, events) rather than the scanner. One connection per request
 * (`connection: close`); handles chunked, content-length and close-delimited bodies; no TLS,
 * no redirects, no keep-alive pool. Not for production use: src/client/http-client.ts is the client.
 */
import net from 'node:net';
import { performance } from 'node:perf_hooks';

const enum S {
  Head,
  Size,
  Data,
  DataCrlf,
  Length,
  Close,
  Done,
}

/** POST `body` to 127.0.0.1:port`path`; `onBody(bytes, now)` per piece of response body. */
export function rawPost(port: number, path: string, body: string, onBody: (b: Uint8Array, now: number) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.setNoDelay(true);
    let state = S.Head;
    let head = '';
    let status = 0;
    let left = 0; // bytes left in the current chunk / body
    let sizeLine = '';
    sock.on('connect', () => {
      sock.write(`POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
    });
    sock.on('data', (b: Buffer) => {
      const now = performance.now();
      let i = 0;
      const n = b.length;
      while (i < n && state !== S.Done) {
        if (state === S.Head) {
          const k = b.indexOf('\r\n\r\n', i, 'latin1');
          // headers are small and arrive once: a string is fine here
          if (k < 0) {
            head += b.toString('latin1', i);
            return;
          }
          head += b.toString('latin1', i, k);
          i = k + 4;
          status = Number(head.slice(9, 12));
          const h = head.toLowerCase();
          const cl = /\r\ncontent-length:\s*(\d+)/.exec(h);
          if (/\r\ntransfer-encoding:\s*chunked/.test(h)) state = S.Size;
          else if (cl) {
            left = Number(cl[1]);
            state = left > 0 ? S.Length : S.Done;
          } else state = S.Close;
        } else if (state === S.Size) {
          const k = b.indexOf(10, i);
          if (k < 0) {
            sizeLine += b.toString('latin1', i);
            return;
          }
          sizeLine += b.toString('latin1', i, k);
          i = k + 1;
          left = parseInt(sizeLine, 16);
          sizeLine = '';
          state = left > 0 ? S.Data : S.Done;
        } else if (state === S.Data) {
          const m = Math.min(left, n - i);
          onBody(b.subarray(i, i + m), now);
          i += m;
          left -= m;
          if (left === 0) {
            state = S.DataCrlf;
            left = 2;
          }
        } else if (state === S.DataCrlf) {
          const m = Math.min(left, n - i);
          i += m;
          left -= m;
          if (left === 0) state = S.Size;
        } else if (state === S.Length) {
          const m = Math.min(left, n - i);
          onBody(b.subarray(i, i + m), now);
          i += m;
          left -= m;
          if (left === 0) state = S.Done;
        } else {
          onBody(b.subarray(i), now);
          i = n;
        }
      }
      if (state === S.Done) sock.destroy();
    });
    sock.on('close', () => resolve(status));
    sock.on('error', reject);
  });
}
