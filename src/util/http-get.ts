/**
 * GET a text body over node:http(s) with a timeout and a size cap, for side channels that are
 * not the measured hot path (metrics scrapes, Prometheus queries), through the proxy the settings
 * name for this URL (util/proxy.ts). node:http rather than fetch,
 * whose "bad port" list refuses ports real servers use.
 */
import { nodeRequest, proxyRoute, type ProxySettings } from './proxy.js';

export interface TextResponse {
  status: number;
  contentType: string;
  body: string;
}

export function getText(url: URL, opts: { timeoutMs: number; maxBytes: number; headers?: Record<string, string>; insecureTls?: boolean; proxy?: ProxySettings | null }): Promise<TextResponse> {
  return new Promise((resolve, reject) => {
    const req = nodeRequest(url, { method: 'GET', headers: opts.headers ?? {}, insecureTls: opts.insecureTls ?? false }, proxyRoute(url, opts.proxy), (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > opts.maxBytes) {
          req.destroy(new Error(`answer larger than ${opts.maxBytes} bytes`));
          return;
        }
        chunks.push(c);
      });
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.setTimeout(opts.timeoutMs, () => req.destroy(Object.assign(new Error(`no answer within ${opts.timeoutMs} ms`), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
    req.end();
  });
}
