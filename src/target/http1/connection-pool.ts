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

export interface ConnectionOwner {
  onData(bytes: Buffer): void;
  /** The server ended or the socket closed (err when it failed). */
  onClose(err: NodeJS.ErrnoException | null): void;
}

export class Connection {
  owner: ConnectionOwner | null = null;
  /** Responses completed on this connection. */
  served = 0;
  private closed = false;
  private error: NodeJS.ErrnoException | null = null;

  constructor(
    readonly socket: net.Socket,
    private readonly pool: ConnectionPool,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (b: Buffer) => {
      if (this.owner) this.owner.onData(b);
      else socket.destroy(); // bytes nobody asked for: the connection is not in a known state
    });
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
  ) {}

  /** A connection for one request: an idle one (reused) or a new one. */
  acquire(allowReuse: boolean): { conn: Connection; reused: boolean } {
    while (allowReuse && this.idle.length > 0) {
      const conn = this.idle.pop()!;
      if (conn.usable) return { conn, reused: true };
    }
    const conn = new Connection(this.connect(), this);
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
        const conn = new Connection(this.connect(), this);
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
    conn.served++;
    if (conn.served === 2) this.multiUse++;
    if (conn.usable) this.idle.push(conn);
  }

  /** Called by a connection when its socket closed. */
  dropped(conn: Connection): void {
    this.all.delete(conn);
    if (conn.served === 1 && conn.owner === null) this.oneShotCloses++;
    const i = this.idle.indexOf(conn);
    if (i >= 0) this.idle.splice(i, 1);
  }

  close(): void {
    for (const c of this.all) c.destroy();
    this.all.clear();
    this.idle.length = 0;
  }

  private connect(): net.Socket {
    const u = this.url;
    const host = u.hostname.replace(/^\[|\]$/g, '');
    if (u.protocol === 'https:') {
      return tls.connect({
        host,
        port: Number(u.port || 443),
        servername: net.isIP(host) ? undefined : host,
        ALPNProtocols: ['http/1.1'],
        rejectUnauthorized: !this.insecureTls,
      });
    }
    return net.connect({ host, port: Number(u.port || 80) });
  }
}
