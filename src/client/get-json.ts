/**
 * A small GET for JSON over node:http(s). Used by pre-flight instead of fetch, whose
 * "bad port" list (6000, 6665–6669, …) would refuse servers users really run on.
 */
import http from 'node:http';
import https from 'node:https';

export interface GetJsonResult {
  status: number;
  json: unknown;
}

export function getJson(url: URL, headers: Record<string, string>, timeoutMs: number, insecureTls = false): Promise<GetJsonResult> {
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.get(url, { headers: { accept: 'application/json', ...headers }, agent: false, rejectUnauthorized: !insecureTls }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        let json: unknown;
        try {
          json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          json = null; // not JSON: the caller treats it like a missing endpoint
        }
        resolve({ status: res.statusCode ?? 0, json });
      });
    });
    req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
  });
}
