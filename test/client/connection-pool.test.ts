/**
 * What the pool learns from a server that closes every connection after one response
 * (llama.cpp): such a close counts whether the connection sat idle or a next request had just
 * taken it — a fast client wins that race nearly every time.
 */
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionPool, type Connection } from '../../src/client/http1/connection-pool.js';

/** A raw server that answers each connection's first request with one response, then closes. */
async function oneShotServer(): Promise<{ url: URL; server: Server }> {
  const server = createServer((sock) => {
    sock.once('data', () => sock.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\nok'));
    sock.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`), server };
}

/** Sends a request on `conn` and resolves when its whole (tiny) response has arrived. */
function exchange(conn: Connection): Promise<void> {
  return new Promise((resolve) => {
    let got = '';
    conn.owner = {
      onData: (b) => {
        got += b.toString('latin1');
        if (got.endsWith('\r\n\r\nok')) resolve();
      },
      onClose: () => resolve(),
    };
    conn.socket.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n');
  });
}

let server: Server | null = null;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

describe('ConnectionPool one-shot closes', () => {
  it('counts a close that meets an idle connection', async () => {
    const s = await oneShotServer();
    server = s.server;
    const pool = new ConnectionPool(s.url);
    const { conn } = pool.acquire(true);
    await exchange(conn);
    pool.release(conn);
    await new Promise((r) => conn.socket.once('close', r));
    expect(pool.oneShotCloses).toBe(1);
    pool.close();
  });

  it('counts a close that meets the next request on the reused connection', async () => {
    const s = await oneShotServer();
    server = s.server;
    const pool = new ConnectionPool(s.url);
    const first = pool.acquire(true).conn;
    await exchange(first);
    pool.release(first);
    // taken again at once, before the server's FIN can have been read
    const again = pool.acquire(true);
    expect(again.reused).toBe(true);
    expect(again.conn).toBe(first);
    let closed = false;
    again.conn.owner = { onData: () => {}, onClose: () => (closed = true) };
    await new Promise((r) => first.socket.once('close', r));
    expect(closed).toBe(true);
    expect(pool.oneShotCloses).toBe(1);
    expect(pool.multiUse).toBe(0);
    pool.close();
  });
});
