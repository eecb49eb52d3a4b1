/** The one mapping from the run spec's `target` section to the client's TargetConfig. */
import type { TargetSpec } from '../config/schema.js';
import type { TargetConfig } from './http-client.js';
import type { ProxySettings } from '../util/proxy.js';

export interface ResolvedTarget {
  /** The server (or the built-in simulator's URL). */
  baseUrl: string;
  /** Read from the environment variable the spec names. */
  apiKey: string | null;
  ignoreEos: boolean;
  keepText: boolean;
  countTokens: ((text: string) => number) | undefined;
  /** HTTP(S)_PROXY / NO_PROXY (util/proxy.ts); absent or null: direct (the simulator). */
  proxy?: ProxySettings | null;
}

/** Everything but the model, which pre-flight may still have to choose. */
export function targetConfig(t: TargetSpec, r: ResolvedTarget): Omit<TargetConfig, 'model'> {
  return {
    baseUrl: r.baseUrl,
    path: t.endpoint,
    endpointType: t.endpoint_type ?? null,
    apiKey: r.apiKey,
    headers: t.headers,
    extraBody: t.extra_body,
    stream: t.stream,
    ignoreEos: r.ignoreEos,
    timeoutMs: t.timeout_ms,
    stallTimeoutMs: t.stall_timeout_ms,
    keepText: r.keepText,
    countTokens: r.countTokens,
    insecureTls: t.tls_insecure,
    proxy: r.proxy ?? null,
  };
}
