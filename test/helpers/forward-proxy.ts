/**
 * A small forward HTTP proxy on 127.0.0.1 for the proxy tests: absolute-form requests are
 * forwarded (streamed, keep-alive to the client), CONNECT opens a tunnel; everything that passes
 * is counted. Optional: Basic credentials required (else 407), CONNECT refused with a status.
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';

export interface ForwardProxy {
  url: string;
  port: number;
  /** Request lines seen, e.g. "POST http://127.0.0.1:1234/v1/completions" or "CONNECT 127.0.0.1:443". */
  seen: string[];
  /** Proxy-Authorization values received (to check what was sent, never to print). */
  auths: Array<string | undefined>;
  /** Client connections accepted by the proxy. */
  connections: number;
  close(): Promise<void>;
}

export interface ForwardProxyOptions {
  /** user:password the proxy requires (407 otherwise). */
  credentials?: string;
  /** Answer every CONNECT with this status instead of opening a tunnel. */
  refuseConnect?: number;
}

export async function startForwardProxy(o: ForwardProxyOptions = {}): Promise<ForwardProxy> {
  const sockets = new Set<Socket>();
  const expected = o.credentials ? `Basic ${Buffer.from(o.credentials).toString('base64')}` : null;
  const authorized = (req: IncomingMessage): boolean => expected === null || req.headers['proxy-authorization'] === expected;
  const p = { seen: [] as string[], auths: [] as Array<string | undefined>, connections: 0 };
  const server: Server = createServer((req, res) => {
    p.seen.push(`${req.method} ${req.url}`);
    p.auths.push(req.headers['proxy-authorization']);
    if (!authorized(req)) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"', 'content-type': 'text/plain' });
      res.end('proxy authentication required');
      return;
    }
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400);
      res.end('not absolute-form');
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const up = request({ host: target.hostname, port: target.port, method: req.method, path: `${target.pathname}${target.search}`, headers, agent: false }, (ur) => {
      // Hop-by-hop headers stay on their hop: the client's connection to the proxy is kept alive.
      const h = { ...ur.headers };
      delete h.connection;
      delete h['keep-alive'];
      res.writeHead(ur.statusCode ?? 502, h);
      ur.pipe(res);
    });
    up.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    p.seen.push(`CONNECT ${req.url}`);
    p.auths.push(req.headers['proxy-authorization']);
    sockets.add(client);
    if (!authorized(req)) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nproxy-authenticate: Basic realm="test"\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    if (o.refuseConnect) {
      client.end(`HTTP/1.1 ${o.refuseConnect} Refused\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    const [host, port] = [(req.url ?? '').replace(/:\d+$/, '').replace(/^\[|\]$/g, ''), Number(/:(\d+)$/.exec(req.url ?? '')?.[1] ?? 443)];
    const up = net.connect({ host, port }, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) up.write(head);
      up.pipe(client);
      client.pipe(up);
    });
    sockets.add(up);
    up.on('error', () => client.destroy());
    client.on('error', () => up.destroy());
  });
  server.on('connection', (s: Socket) => {
    p.connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(p, {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  });
}

/** A port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
