/**
 * Keep-alive connections to one origin, for the streaming client.
 *
 * Each connection has listeners attached once, for its whole life, that forward to whoever owns
 * it now (an exchange) — no listener churn per request. Idle connections are reused newest first
 * (the least likely to have been closed by the server's idle timeout); one that the server
 * closes while idle is dropped at once.
 */
import net from 'node:net';
import tls from 'node:tls';
import { tlsThroughProxy, type ProxyRoute } from '../../util/proxy.js';

/**
 * Plain TCP reads land in this one buffer (`onread`) instead of a new Buffer per read: at tens of
 * thousands of chunks a second the per-read allocations were most of the thread's garbage, and
 * the young-generation collections they caused pause the very thread that timestamps chunks.
 * One buffer serves every socket of the thread: a read is handled (parsed, scanned, copied where
 * it must outlive the call) before the next one lands. TLS sockets keep 'data' events.
 */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

export interface ConnectionOwner {
  /** The bytes are valid only during the call: copy what must outlive it. */
  onData(bytes: Buffer): void;
  /** The server ended or the socket closed (err when it failed). */
  onClose(err: NodeJS.ErrnoException | null): void;
}

export class Connection {
  owner: ConnectionOwner | null = null;
  /** Responses completed on this connection. */
  served = 0;
  /** Bytes arrived since the last response completed (the start of another one). */
  readSinceRelease = false;
  private closed = false;
  private error: NodeJS.ErrnoException | null = null;

  constructor(
    readonly socket: net.Socket,
    private readonly pool: ConnectionPool,
    /** The socket reads into READ_BUFFER and calls onRead; otherwise it emits 'data'. */
    ownReads = false,
  ) {
    socket.setNoDelay(true);
    if (!ownReads) socket.on('data', (b: Buffer) => this.onRead(b));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      this.error = err;
    });
    socket.on('end', () => socket.destroy());
    socket.on('close', () => {
      this.closed = true;
      this.pool.dropped(this);
      const owner = this.owner;
      this.owner = null;
      owner?.onClose(this.error);
    });
  }

  /** Bytes read: valid only during this call (they may sit in the shared read buffer). */
  onRead(b: Buffer): void {
    this.readSinceRelease = true;
    if (this.owner) this.owner.onData(b);
    else this.socket.destroy(); // bytes nobody asked for: the connection is not in a known state
  }

  get usable(): boolean {
    return !this.closed && !this.socket.destroyed;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

export class ConnectionPool {
  private readonly idle: Connection[] = [];
  private readonly all = new Set<Connection>();
  /** Sockets closed by the server after exactly one response, and sockets that served two or more. */
  oneShotCloses = 0;
  multiUse = 0;

  constructor(
    private readonly url: URL,
    /** Skip TLS certificate verification (self-signed internal endpoints; --insecure). */
    private readonly insecureTls = false,
    /** The proxy every connection goes through (util/proxy.ts), or null: straight to the server. */
    private readonly proxy: ProxyRoute | null = null,
  ) {}

  /** A connection for one request: an idle one (reused) or a new one. */
  acquire(allowReuse: boolean): { conn: Connection; reused: boolean } {
    while (allowReuse && this.idle.length > 0) {
      const conn = this.idle.pop()!;
      if (conn.usable) return { conn, reused: true };
    }
    const conn = this.open();
    this.all.add(conn);
    return { conn, reused: false };
  }

  /**
   * Opens up to `n` connections ahead of the load and parks them idle, so the first requests
   * pay no connect (or TLS handshake) and the sockets exist before the clock starts. Resolves
   * with how many connected within `timeoutMs`; failures are left for real requests to report.
   */
  async preconnect(n: number, timeoutMs = 10_000): Promise<number> {
    if (n <= 0) return 0;
    const ready = this.url.protocol === 'https:' ? 'secureConnect' : 'connect';
    const opened = await Promise.all(
      Array.from({ length: n }, () => {
        const conn = this.open();
        this.all.add(conn);
        return new Promise<Connection | null>((resolve) => {
          const timer = setTimeout(() => done(null), timeoutMs);
          const done = (c: Connection | null): void => {
            clearTimeout(timer);
            conn.socket.off(ready, onReady).off('close', onClose);
            if (c === null) conn.destroy();
            resolve(c);
          };
          const onReady = (): void => done(conn);
          const onClose = (): void => done(null);
          conn.socket.once(ready, onReady).once('close', onClose);
        });
      }),
    );
    let count = 0;
    for (const c of opened) {
      if (c?.usable) {
        this.idle.push(c);
        count++;
      }
    }
    return count;
  }

  /** Returns a connection after a complete, reusable response. */
  release(conn: Connection): void {
    conn.owner = null;
    conn.readSinceRelease = false;
    conn.served++;
    if (conn.served === 2) this.multiUse++;
    if (conn.usable) this.idle.push(conn);
  }

  /**
   * Called by a connection when its socket closed. Closed after exactly one response with
   * nothing of another read counts as a one-shot close, whether it sat idle or a next request
   * had just taken it (a fast client usually wins that race, and the request is then retried).
   */
  dropped(conn: Connection): void {
    this.all.delete(conn);
    if (conn.served === 1 && !conn.readSinceRelease) this.oneShotCloses++;
    const i = this.idle.indexOf(conn);
    if (i >= 0) this.idle.splice(i, 1);
  }

  close(): void {
    for (const c of this.all) c.destroy();
    this.all.clear();
    this.idle.length = 0;
  }

  private open(): Connection {
    const u = this.url;
    const host = u.hostname.replace(/^\[|\]$/g, '');
    // Through a proxy: TLS over a CONNECT tunnel, or plain TCP to the proxy (absolute-form requests).
    if (this.proxy && u.protocol === 'https:') return new Connection(tlsThroughProxy(this.proxy, u, { insecureTls: this.insecureTls, alpn: ['http/1.1'] }), this);
    if (u.protocol === 'https:') {
      const socket = tls.connect({
        host,
        port: Number(u.port || 443),
        servername: net.isIP(host) ? undefined : host,
        ALPNProtocols: ['http/1.1'],
        rejectUnauthorized: !this.insecureTls,
      });
      return new Connection(socket, this);
    }
    let conn: Connection | null = null;
    const socket = net.connect({
      host: this.proxy?.host ?? host,
      port: this.proxy?.port ?? Number(u.port || 80),
      onread: {
        buffer: READ_BUFFER,
        callback: (n: number, buf: Uint8Array): boolean => {
          conn!.onRead((buf as Buffer).subarray(0, n));
          return true; // keep reading
        },
      },
    });
    conn = new Connection(socket, this, true);
    return conn;
  }
}
