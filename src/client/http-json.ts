/**
 * Small JSON requests over node:http(s) for pre-flight (GET /v1/models, POST /tokenize), instead
 * of fetch, whose "bad port" list (6000, 6665–6669, …) would refuse servers users really run on.
 * The answer keeps what a diagnosis needs: status, content type, Retry-After and the body's text.
 */
import { nodeRequest, proxyRoute, type ProxySettings } from '../util/proxy.js';
import { retryAfterMs } from './http-client.js';

/** At most this much of a body is kept: a metadata answer is small, an HTML page need not be read whole. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface JsonAnswer {
  status: number;
  /** The Content-Type header ('' when absent). */
  contentType: string;
  /** Retry-After in ms (seconds or an HTTP date), null when absent or unreadable. */
  retryAfterMs: number | null;
  /** The body as text (truncated at 4 MiB). */
  text: string;
  /** The body parsed as JSON, null when it is not JSON. */
  json: unknown;
}

export interface JsonRequest {
  method: 'GET' | 'POST';
  url: URL;
  headers: Record<string, string>;
  body?: unknown;
  timeoutMs: number;
  insecureTls?: boolean;
  /** HTTP(S)_PROXY / NO_PROXY (util/proxy.ts); absent: direct. */
  proxy?: ProxySettings | null;
}

export function requestJson(r: JsonRequest): Promise<JsonAnswer> {
  const payload = r.body === undefined ? null : Buffer.from(JSON.stringify(r.body));
  const headers: Record<string, string> = { accept: 'application/json', ...r.headers };
  if (payload) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    const req = nodeRequest(r.url, { method: r.method, headers, insecureTls: r.insecureTls ?? false }, proxyRoute(r.url, r.proxy), (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        if (size < MAX_BODY_BYTES) chunks.push(c);
        size += c.length;
      });
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown = null;
        try {
          json = JSON.parse(text);
        } catch {
          // not JSON: the caller says what it got instead
        }
        const type = res.headers['content-type'];
        resolve({ status: res.statusCode ?? 0, contentType: typeof type === 'string' ? type : '', retryAfterMs: retryAfterMs(res.headers['retry-after']), text, json });
      });
    });
    req.setTimeout(r.timeoutMs, () => req.destroy(Object.assign(new Error(`no answer within ${r.timeoutMs} ms`), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
    req.end(payload ?? undefined);
  });
}

