/**
 * --cold-start: how long a server that was just started takes to answer. Polls its health
 * endpoint (GET /health; /v1/models when the server has no /health) until it answers 200,
 * counting refused connections and non-200 answers as "not yet". The clock and the sleep are
 * injectable so tests count polls, not seconds.
 */
import { UserError } from '../errors/user-error.js';
import { endpointUrl } from './endpoint-url.js';
import { requestJson } from './http-json.js';
import type { ProxySettings } from '../util/proxy.js';

export interface HealthWait {
  /** From the first poll to the first 200 answer, ms. */
  time_to_healthy_ms: number;
  polls: number;
  /** The path that answered 200. */
  path: string;
}

export interface HealthWaitOptions {
  headers: Record<string, string>;
  insecureTls: boolean;
  /** HTTP(S)_PROXY / NO_PROXY (util/proxy.ts); absent: direct. */
  proxy?: ProxySettings | null;
  /** Give up after this long (ms): a UserError. */
  timeoutMs: number;
  intervalMs: number;
  signal?: AbortSignal;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export async function waitForHealthy(baseUrl: string, o: HealthWaitOptions): Promise<HealthWait> {
  const now = o.now ?? (() => performance.now());
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const start = now();
  let path = '/health';
  let polls = 0;
  let last: string;
  for (;;) {
    if (o.signal?.aborted) throw new UserError('--cold-start: interrupted while waiting for the server to become healthy');
    polls++;
    try {
      const res = await requestJson({ method: 'GET', url: endpointUrl(baseUrl, path), headers: o.headers, timeoutMs: Math.min(5000, o.timeoutMs), insecureTls: o.insecureTls, proxy: o.proxy ?? null });
      if (res.status === 200) return { time_to_healthy_ms: now() - start, polls, path };
      // A server without /health (404) is asked for its model list instead.
      if (res.status === 404 && path === '/health') path = '/v1/models';
      last = `HTTP ${res.status}`;
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      last = e.code ?? e.message;
    }
    if (now() - start >= o.timeoutMs) {
      throw new UserError(`--cold-start: ${baseUrl} was not healthy within ${Math.round(o.timeoutMs / 1000)} s (${polls} polls; last: ${last})`);
    }
    await sleep(o.intervalMs);
  }
}
