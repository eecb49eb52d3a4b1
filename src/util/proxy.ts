/**
 * HTTP(S)_PROXY / NO_PROXY: the one owner of "through a proxy or not, for this URL", and of how a
 * request gets there. Every request to a real target asks `proxyRoute` (the streaming client's
 * pool, pre-flight and calibration, cold start, /metrics scrapes and environment probes); the
 * built-in simulator is given DIRECT settings and is never proxied.
 *
 * The rules (docs/cli.md §Proxies), curl's:
 *  - `http_proxy` for http:// targets, `https_proxy` for https:// ones, `all_proxy` for either when
 *    its own is unset; for each, the lowercase name wins when both spellings are set (non-empty),
 *    else the uppercase one (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`).
 *  - A proxy URL without a scheme is http://; without a port, 1080 (curl's default). Only http://
 *    proxies are spoken (https:// and socks proxies are refused with one line).
 *  - `no_proxy` (else `NO_PROXY`): a list split at commas and spaces; `*` matches every host; an
 *    entry matches its host and every subdomain (`example.com`, `.example.com` and `*.example.com`
 *    are the same rule); `host:port` matches only that port; IP literals match exactly
 *    (`[::1]` or `::1`), and `10.0.0.0/8` matches the range (CIDR, as curl ≥ 7.86).
 *  - localhost and 127.0.0.1 are proxied like any host unless NO_PROXY names them, as curl does.
 *
 * http:// targets are sent in absolute form (`POST http://host:port/v1/… HTTP/1.1`) on keep-alive
 * connections to the proxy; https:// targets get `CONNECT host:port` and TLS over the tunnel (SNI
 * the target's name). Credentials in the proxy URL go in `Proxy-Authorization: Basic`; the label
 * shown anywhere is the proxy URL without them.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { Duplex } from 'node:stream';

/** What the environment (or --proxy / --no-proxy) says, serializable (it travels to worker threads). */
export interface ProxySettings {
  /** Proxy for http:// targets, or null. */
  http: string | null;
  /** Proxy for https:// targets, or null. */
  https: string | null;
  /** The NO_PROXY list as given ('' when none). */
  noProxy: string;
}

/** No proxy for anything (the simulator; --no-proxy; an environment without proxy variables). */
export const DIRECT: ProxySettings = Object.freeze({ http: null, https: null, noProxy: '' });

/** The proxy one URL goes through. */
export interface ProxyRoute {
  /** The proxy's host (no brackets) and port. */
  host: string;
  port: number;
  /** `http://host:port` — the proxy without credentials, the only form ever shown. */
  label: string;
  /** The `Proxy-Authorization` value (Basic), or null. */
  authorization: string | null;
}

const DEFAULT_PROXY_PORT = 1080;

function envValue(env: NodeJS.ProcessEnv, name: string): string | null {
  const lower = env[name.toLowerCase()]?.trim();
  if (lower) return lower;
  const upper = env[name.toUpperCase()]?.trim();
  return upper ? upper : null;
}

/**
 * The settings from the environment, with the command line's override: `--proxy URL` (a string)
 * replaces the proxy for both schemes, `--no-proxy` (false) sends everything direct. NO_PROXY
 * still applies under --proxy, as under curl's -x.
 */
export function proxySettingsFromEnv(env: NodeJS.ProcessEnv, override?: string | false): ProxySettings {
  if (override === false) return DIRECT;
  const all = envValue(env, 'all_proxy');
  const s: ProxySettings = {
    http: override ?? envValue(env, 'http_proxy') ?? all,
    https: override ?? envValue(env, 'https_proxy') ?? all,
    noProxy: envValue(env, 'no_proxy') ?? '',
  };
  // Refused now, with the variable's name, rather than at the first request.
  if (s.http) parseProxyUrl(s.http, override !== undefined ? '--proxy' : 'HTTP_PROXY');
  if (s.https) parseProxyUrl(s.https, override !== undefined ? '--proxy' : 'HTTPS_PROXY');
  return s;
}

/** A bad proxy setting: the message names where it came from. */
export class ProxySettingError extends Error {}

/** The proxy URL parsed (scheme http:// assumed when absent); throws ProxySettingError. */
export function parseProxyUrl(raw: string, source: string): URL {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
  let u: URL;
  try {
    u = new URL(withScheme);
  } catch {
    throw new ProxySettingError(`${source}: not a proxy URL (${proxyLabelOf(raw)}); expected e.g. http://proxy.example.com:3128`);
  }
  if (u.protocol !== 'http:') throw new ProxySettingError(`${source}: ${u.protocol}// proxies are not supported (${proxyLabelOf(raw)}); give an http:// proxy`);
  if (!u.hostname) throw new ProxySettingError(`${source}: the proxy URL has no host (${proxyLabelOf(raw)})`);
  return u;
}

/** A proxy setting shown without its credentials, even when it does not parse. */
function proxyLabelOf(raw: string): string {
  return raw.replace(/\/\/[^/@]*@/, '//').replace(/^[^/:@]*:[^/@]*@/, '');
}

/** The proxy a URL goes through under these settings, or null (direct). */
export function proxyRoute(url: URL, s: ProxySettings | null | undefined): ProxyRoute | null {
  if (!s) return null;
  const raw = url.protocol === 'https:' ? s.https : url.protocol === 'http:' ? s.http : null;
  if (!raw) return null;
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  if (noProxyMatches(url.hostname, port, s.noProxy)) return null;
  return routeOf(parseProxyUrl(raw, url.protocol === 'https:' ? 'HTTPS_PROXY' : 'HTTP_PROXY'));
}

function routeOf(u: URL): ProxyRoute {
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const port = Number(u.port || DEFAULT_PROXY_PORT);
  const authorization = u.username || u.password ? `Basic ${Buffer.from(`${safeDecode(u.username)}:${safeDecode(u.password)}`).toString('base64')}` : null;
  return { host, port, label: `http://${u.hostname}:${port}`, authorization };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The secret values of the settings (proxy user info and its Basic value), for the run's redactor. */
export function proxySecrets(s: ProxySettings | null | undefined): string[] {
  const out: string[] = [];
  for (const raw of [s?.http, s?.https]) {
    if (!raw) continue;
    try {
      const u = parseProxyUrl(raw, 'proxy');
      for (const part of [u.username, u.password]) if (part) out.push(part, safeDecode(part));
      const auth = routeOf(u).authorization;
      if (auth) out.push(auth.slice('Basic '.length));
    } catch {
      // refused when the settings were read
    }
  }
  return out;
}

/** "via proxy http://proxy:3128" for the run's first line, or null when this URL is not proxied. */
export function proxyNote(url: string, s: ProxySettings | null | undefined): string | null {
  const r = proxyRoute(new URL(url), s);
  return r ? `via proxy ${r.label}` : null;
}

function normalHost(h: string): string {
  return h.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
}

/** One NO_PROXY entry: its host rule, its port (null: any), or a CIDR range. */
interface NoProxyEntry {
  host: string;
  port: number | null;
  cidr: { addr: string; prefix: number; family: 'ipv4' | 'ipv6' } | null;
}

function parseEntry(raw: string): NoProxyEntry | null {
  let e = raw.trim().toLowerCase();
  if (e === '') return null;
  const slash = /^\[?([0-9a-f.:]+)\]?\/(\d{1,3})$/.exec(e);
  if (slash && net.isIP(slash[1]!)) {
    const family = net.isIPv4(slash[1]!) ? 'ipv4' : 'ipv6';
    const prefix = Number(slash[2]);
    if (prefix <= (family === 'ipv4' ? 32 : 128)) return { host: slash[1]!, port: null, cidr: { addr: slash[1]!, prefix, family } };
  }
  let port: number | null = null;
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(e);
  if (bracket) {
    e = bracket[1]!;
    port = bracket[2] ? Number(bracket[2]) : null;
  } else if (!net.isIPv6(e)) {
    const m = /^(.*):(\d+)$/.exec(e);
    if (m) {
      e = m[1]!;
      port = Number(m[2]);
    }
  }
  e = e.replace(/^\*\./, '.').replace(/^\.+/, '').replace(/\.$/, '');
  if (e === '') return null;
  return { host: e, port, cidr: null };
}

/** Whether NO_PROXY exempts this host and port (curl's rules, above). */
export function noProxyMatches(hostname: string, port: number, noProxy: string): boolean {
  const host = normalHost(hostname);
  const ip = net.isIP(host);
  for (const raw of noProxy.split(/[\s,]+/)) {
    if (raw.trim() === '*') return true;
    const e = parseEntry(raw);
    if (!e) continue;
    if (e.port !== null && e.port !== port) continue;
    if (e.cidr) {
      if (ip === 0) continue;
      const list = new net.BlockList();
      list.addSubnet(e.cidr.addr, e.cidr.prefix, e.cidr.family);
      if (list.check(host, ip === 4 ? 'ipv4' : 'ipv6')) return true;
      continue;
    }
    if (ip !== 0 || net.isIP(e.host) !== 0) {
      if (ip !== 0 && net.isIP(e.host) === ip && sameIp(host, e.host)) return true;
      continue;
    }
    if (host === e.host || host.endsWith(`.${e.host}`)) return true;
  }
  return false;
}

function sameIp(a: string, b: string): boolean {
  if (a === b) return true;
  const list = new net.BlockList();
  const family = net.isIPv4(b) ? 'ipv4' : 'ipv6';
  list.addAddress(b, family);
  return list.check(a, family);
}

/** Why a request through a proxy failed before the target could answer; the message names the proxy. */
export class ProxyError extends Error {
  constructor(
    readonly code: 'PROXY_UNREACHABLE' | 'PROXY_AUTH' | 'PROXY_REFUSED',
    readonly proxy: string,
    message: string,
  ) {
    super(message);
  }
}

const PROXY_CONNECT_FAILURES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'ECONNRESET', 'EPIPE']);

/** A socket error on the way to the proxy, as a ProxyError naming it (other errors unchanged). */
export function proxyConnectError(err: NodeJS.ErrnoException, route: ProxyRoute): Error {
  if (err instanceof ProxyError || !PROXY_CONNECT_FAILURES.has(err.code ?? '')) return err;
  return new ProxyError('PROXY_UNREACHABLE', route.label, `cannot reach the proxy ${route.label} (${err.code}); check --proxy / HTTP(S)_PROXY, or exempt the target in NO_PROXY`);
}

/** The 407 line, the same wherever it is met. */
export function proxyAuthMessage(route: ProxyRoute): string {
  return `proxy ${route.label} requires authentication (--proxy / HTTPS_PROXY: put the user and password in the proxy URL's user info)`;
}

const MAX_CONNECT_HEAD = 16 * 1024;

/**
 * A CONNECT tunnel through the proxy to `host:port`, as a Duplex for `tls.connect({ socket })`:
 * bytes written before the proxy said 200 (the TLS ClientHello) wait; a refusal (407, 403, 502…)
 * destroys it with a ProxyError.
 */
export class ConnectTunnel extends Duplex {
  private readonly raw: net.Socket;
  private open = false;
  private pending: Array<{ chunk: Buffer; cb: (err?: Error | null) => void }> = [];

  constructor(route: ProxyRoute, host: string, port: number) {
    super();
    const authority = `${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
    this.raw = net.connect({ host: route.host, port: route.port });
    this.raw.setNoDelay(true);
    this.raw.once('connect', () => {
      this.raw.write(`CONNECT ${authority} HTTP/1.1\r\nhost: ${authority}\r\n${route.authorization ? `proxy-authorization: ${route.authorization}\r\n` : ''}\r\n`, 'latin1');
    });
    let head: Buffer = Buffer.alloc(0);
    this.raw.on('data', (b: Buffer) => {
      if (this.open) {
        if (!this.push(b)) this.raw.pause();
        return;
      }
      head = head.length === 0 ? b : Buffer.concat([head, b]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > MAX_CONNECT_HEAD) this.destroy(new ProxyError('PROXY_REFUSED', route.label, `the proxy ${route.label} sent no valid answer to CONNECT ${authority}`));
        return;
      }
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head.subarray(0, end).toString('latin1'));
      const code = status ? Number(status[1]) : 0;
      if (code !== 200) {
        this.destroy(
          code === 407
            ? new ProxyError('PROXY_AUTH', route.label, proxyAuthMessage(route))
            : new ProxyError('PROXY_REFUSED', route.label, `the proxy ${route.label} refused CONNECT ${authority} (${code ? `HTTP ${code}` : 'not an HTTP answer'})`),
        );
        return;
      }
      this.open = true;
      const rest = head.subarray(end + 4);
      head = Buffer.alloc(0);
      for (const p of this.pending) this.raw.write(p.chunk, p.cb);
      this.pending = [];
      if (rest.length > 0) this.push(rest);
    });
    this.raw.on('end', () => (this.open ? this.push(null) : this.destroy(new ProxyError('PROXY_REFUSED', route.label, `the proxy ${route.label} closed the connection before answering CONNECT ${authority}`))));
    this.raw.on('error', (err: NodeJS.ErrnoException) => this.destroy(proxyConnectError(err, route)));
    this.raw.on('close', () => {
      if (!this.destroyed) this.destroy();
    });
  }

  override _read(): void {
    this.raw.resume();
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    if (this.open) this.raw.write(chunk, cb);
    else this.pending.push({ chunk, cb });
  }

  override _final(cb: (err?: Error | null) => void): void {
    this.raw.end();
    cb();
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    this.raw.destroy();
    cb(err);
  }
}

/** TLS to `url`'s host through a CONNECT tunnel (SNI = the target's name). */
export function tlsThroughProxy(route: ProxyRoute, url: URL, opts: { insecureTls: boolean; alpn?: string[] }): tls.TLSSocket {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const tunnel = new ConnectTunnel(route, host, Number(url.port || 443));
  const socket = tls.connect({ socket: tunnel, servername: net.isIP(host) ? undefined : host, rejectUnauthorized: !opts.insecureTls, ...(opts.alpn ? { ALPNProtocols: opts.alpn } : {}) });
  // The TLS socket reports what broke the tunnel (a refused CONNECT names the proxy).
  tunnel.on('error', (err) => socket.destroy(err));
  return socket;
}

/**
 * A node:http(s) request to `url`, through the route when there is one: http:// in absolute form to
 * the proxy, https:// through a CONNECT tunnel. A failure to reach the proxy is a ProxyError.
 * For the side channels (pre-flight, /metrics, probes); the hot path has its own pool (client/http1).
 */
export function nodeRequest(url: URL, opts: { method: string; headers: Record<string, string>; insecureTls: boolean }, route: ProxyRoute | null, onResponse: (res: http.IncomingMessage) => void): http.ClientRequest {
  if (!route) {
    const mod = url.protocol === 'https:' ? https : http;
    return mod.request(url, { method: opts.method, headers: opts.headers, agent: false, rejectUnauthorized: !opts.insecureTls }, onResponse);
  }
  if (url.protocol === 'https:') {
    return https.request(url, { method: opts.method, headers: opts.headers, createConnection: () => tlsThroughProxy(route, url, { insecureTls: opts.insecureTls }) }, onResponse);
  }
  const headers: Record<string, string> = { host: url.host, ...opts.headers };
  if (route.authorization) headers['proxy-authorization'] = route.authorization;
  const req = http.request({ host: route.host, port: route.port, method: opts.method, path: `${url.origin}${url.pathname}${url.search}`, headers, agent: false }, onResponse);
  // 'error' listeners added by the caller see the ProxyError: this one is first.
  const emit = req.emit.bind(req);
  req.emit = ((event: string, ...args: unknown[]) => (event === 'error' ? emit('error', proxyConnectError(args[0] as NodeJS.ErrnoException, route)) : emit(event, ...args))) as typeof req.emit;
  return req;
}
