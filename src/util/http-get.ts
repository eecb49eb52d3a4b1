/**
 * GET a text body over node:http(s) with a timeout and a size cap, for side channels that are
 * not the measured hot path (metrics scrapes, Prometheus queries). node:http rather than fetch,
 * whose "bad port" list refuses ports real servers use.
 */
import http from 'node:http';
import https from 'node:https';

export interface TextResponse {
  status: number;
  contentType: string;
  body: string;
}

export function getText(url: URL, opts: { timeoutMs: number; maxBytes: number; headers?: Record<string, string>; insecureTls?: boolean }): Promise<TextResponse> {
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.get(url, { headers: opts.headers ?? {}, agent: false, rejectUnauthorized: !opts.insecureTls }, (res) => {
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
  });
}
