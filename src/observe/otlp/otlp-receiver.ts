/**
 * An OTLP/HTTP trace receiver for the length of a run (`--otlp-receiver [HOST:]PORT`): POST
 * /v1/traces with `application/x-protobuf` or `application/json`, answered as an OpenTelemetry
 * collector answers (200 and an empty ExportTraceServiceResponse) so an engine's exporter neither
 * retries nor backs off. Spans are kept in memory for the join (trace-join.ts). A payload that
 * does not decode is a 400 and one warning per kind; the run goes on. A port that cannot be bound
 * is one warning and the run is measured without traces.
 */
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import type { MetricsListen } from '../../config/observe-spec.js';
import { decodeTraceJson, decodeTraceProtobuf, PayloadError, type ReceivedSpan } from '../../util/otlp-spans.js';

/** Larger payloads are refused (413): a batch of spans is tens of KiB. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

export interface OtlpReceiver {
  /** http://host:port (the traces endpoint is `${url}/v1/traces`). */
  url: string;
  spans(): readonly ReceivedSpan[];
  /** Payloads refused as malformed. */
  readonly malformed: number;
  /** Resolves when `count` spans have arrived or `ms` passed (an engine exports in batches). */
  waitFor(count: (spans: readonly ReceivedSpan[]) => boolean, ms: number): Promise<void>;
  close(): Promise<void>;
}

export function startOtlpReceiver(listen: MetricsListen, warn: (line: string) => void): Promise<OtlpReceiver | null> {
  const spans: ReceivedSpan[] = [];
  let malformed = 0;
  const warned = new Set<string>();
  const waiters = new Set<() => void>();
  const app = new Hono();
  app.post('/v1/traces', async (c) => {
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const body = new Uint8Array(await c.req.arrayBuffer());
    if (body.length > MAX_BODY_BYTES) return c.text('payload too large', 413);
    try {
      const got = type === 'application/json' ? decodeTraceJson(Buffer.from(body).toString('utf8')) : type === 'application/x-protobuf' ? decodeTraceProtobuf(body) : null;
      if (got === null) throw new PayloadError(`unsupported content type "${type.slice(0, 60)}" (OTLP/HTTP sends application/x-protobuf or application/json)`);
      spans.push(...got);
      for (const w of waiters) w();
    } catch (err) {
      if (!(err instanceof PayloadError)) throw err;
      malformed++;
      if (!warned.has(err.message)) {
        warned.add(err.message);
        warn(`--otlp-receiver: refused a trace payload: ${err.message}`);
      }
      return c.text(err.message, 400);
    }
    return type === 'application/json' ? c.json({}) : c.body(new Uint8Array(0), 200, { 'Content-Type': 'application/x-protobuf' });
  });
  return new Promise((resolve) => {
    const onError = (err: NodeJS.ErrnoException) => {
      warn(`--otlp-receiver ${listen.host}:${listen.port}: cannot listen (${err.code ?? err.message}); the run goes on without traces`);
      resolve(null);
    };
    const server: ServerType = serve({ fetch: app.fetch, hostname: listen.host, port: listen.port }, (info: AddressInfo) => {
      server.off('error', onError);
      const host = listen.host === '0.0.0.0' ? '127.0.0.1' : listen.host.includes(':') ? `[${listen.host}]` : listen.host;
      resolve({
        url: `http://${host}:${info.port}`,
        spans: () => spans,
        get malformed() {
          return malformed;
        },
        waitFor: (done, ms) =>
          new Promise<void>((r) => {
            if (done(spans)) return r();
            const check = () => {
              if (!done(spans)) return;
              clearTimeout(timer);
              waiters.delete(check);
              r();
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              r();
            }, ms);
            waiters.add(check);
          }),
        close: () =>
          new Promise<void>((r) => {
            (server as { closeAllConnections?: () => void }).closeAllConnections?.();
            server.close(() => r());
          }),
      });
    });
    server.once('error', onError);
  });
}
