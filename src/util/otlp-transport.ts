/**
 * Sending OTLP protobuf payloads to an OpenTelemetry endpoint, over OTLP/HTTP or OTLP/gRPC — the
 * one owner of that for the simulator's span exporter, `--otlp-forward` and `--otlp-metrics` — and
 * the gRPC method definitions the trace receiver serves (docs/observe.md).
 *
 * An endpoint URL picks its transport by scheme: `http(s)://host:port[/path]` is OTLP/HTTP
 * (protobuf, POST; a URL without a path gets the signal's `/v1/traces` or `/v1/metrics`, as the
 * OpenTelemetry SDKs' OTEL_EXPORTER_OTLP_ENDPOINT does), `grpc://host[:4317]` is OTLP/gRPC in
 * plain text and `grpcs://host[:4317]` over TLS (the scheme vLLM's `--otlp-traces-endpoint`
 * examples use). gRPC goes through @grpc/grpc-js; the payload bytes are passed through unchanged,
 * so what is forwarded is exactly what was received.
 */
import type * as Grpc from '@grpc/grpc-js';
import { createRequire } from 'node:module';

let loaded: typeof Grpc | null = null;

/**
 * @grpc/grpc-js, loaded on first use: it costs about half a second to import on a loaded machine,
 * and every command reads the spec (which parses OTLP URLs) while few speak gRPC.
 */
export function grpcModule(): typeof Grpc {
  if (loaded) return loaded;
  loaded = createRequire(import.meta.url)('@grpc/grpc-js') as typeof Grpc;
  // The library never prints: grpc-js would write its own lines (e.g. "No address added…" beside
  // the receiver's one warning for a port in use). GRPC_VERBOSITY set by the user still wins.
  if (process.env.GRPC_VERBOSITY === undefined) loaded.setLogVerbosity(loaded.logVerbosity.NONE);
  return loaded;
}

export type OtlpSignal = 'traces' | 'metrics';

export const GRPC_EXPORT_PATH: Record<OtlpSignal, string> = {
  traces: '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
  metrics: '/opentelemetry.proto.collector.metrics.v1.MetricsService/Export',
};

export const OTLP_GRPC_PORT = 4317;

export interface OtlpEndpoint {
  protocol: 'http' | 'grpc';
  /** http: the full signal URL; grpc: host:port. */
  target: string;
  tls: boolean;
}

/** @throws Error with a one-line reason when the URL is not an OTLP endpoint. */
export function parseOtlpEndpoint(url: string, signal: OtlpSignal): OtlpEndpoint {
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    throw new Error(`"${url}": not a URL (expected http://HOST:4318, https://…, grpc://HOST:4317 or grpcs://…)`);
  }
  const scheme = u.protocol.replace(/:$/, '').toLowerCase();
  if (scheme === 'grpc' || scheme === 'grpcs') {
    if (u.hostname === '') throw new Error(`"${url}": no host`);
    if (u.pathname !== '' && u.pathname !== '/') throw new Error(`"${url}": a gRPC endpoint has no path (the service is ${GRPC_EXPORT_PATH[signal].slice(1)})`);
    return { protocol: 'grpc', target: `${u.hostname}:${u.port || OTLP_GRPC_PORT}`, tls: scheme === 'grpcs' };
  }
  if (scheme !== 'http' && scheme !== 'https') throw new Error(`"${url}": scheme ${scheme}: is not http, https, grpc or grpcs`);
  if (u.pathname === '' || u.pathname === '/') u.pathname = `/v1/${signal}`;
  return { protocol: 'http', target: u.toString(), tls: scheme === 'https' };
}

const identity = (b: Buffer): Buffer => b;

/** The receiver's method: requests stay bytes, so it decodes (and counts what is malformed) itself. */
export function grpcExportService(signal: OtlpSignal): Grpc.ServiceDefinition {
  return {
    Export: {
      path: GRPC_EXPORT_PATH[signal],
      requestStream: false,
      responseStream: false,
      requestSerialize: identity,
      requestDeserialize: identity,
      responseSerialize: identity,
      responseDeserialize: identity,
    },
  };
}

export interface OtlpSender {
  readonly endpoint: OtlpEndpoint;
  /**
   * One Export; rejects with a one-line reason (an HTTP status, a gRPC status, a network error).
   * `json`: the payload is OTLP/JSON (OTLP/HTTP only; gRPC carries protobuf).
   */
  send(payload: Uint8Array, timeoutMs: number, json?: boolean): Promise<void>;
  close(): void;
}

/** @throws Error (parseOtlpEndpoint) when the URL is not an OTLP endpoint. */
export function otlpSender(url: string, signal: OtlpSignal): OtlpSender {
  const endpoint = parseOtlpEndpoint(url, signal);
  if (endpoint.protocol === 'http') {
    return {
      endpoint,
      send: async (payload, timeoutMs, json = false) => {
        const res = await fetch(endpoint.target, { method: 'POST', headers: { 'Content-Type': json ? 'application/json' : 'application/x-protobuf' }, body: payload, signal: AbortSignal.timeout(timeoutMs) });
        await res.arrayBuffer().catch(() => undefined);
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
      },
      close: () => {},
    };
  }
  const grpc = grpcModule();
  const client = new grpc.Client(endpoint.target, endpoint.tls ? grpc.credentials.createSsl() : grpc.credentials.createInsecure());
  const path = GRPC_EXPORT_PATH[signal];
  return {
    endpoint,
    send: (payload, timeoutMs, json = false) =>
      new Promise<void>((resolve, reject) => {
        if (json) return reject(new Error('OTLP/gRPC carries protobuf, not OTLP/JSON'));
        client.makeUnaryRequest(path, identity, identity, Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength), { deadline: Date.now() + timeoutMs }, (err) => {
          if (err) reject(new Error(`gRPC ${grpc.status[err.code] ?? err.code}: ${err.details || err.message}`));
          else resolve();
        });
      }),
    close: () => client.close(),
  };
}
