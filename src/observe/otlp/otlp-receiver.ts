/**
 * An OTLP trace receiver for the length of a run (`--otlp-receiver`), on one of two transports:
 * - OTLP/HTTP (`[HOST:]PORT`, `http://HOST:PORT`): POST /v1/traces with `application/x-protobuf`
 *   or `application/json`, answered as an OpenTelemetry collector answers (200 and an empty
 *   ExportTraceServiceResponse) so an engine's exporter neither retries nor backs off;
 * - OTLP/gRPC (`grpc://HOST[:4317]`): `opentelemetry.proto.collector.trace.v1.TraceService/Export`
 *   served by @grpc/grpc-js, the request decoded from the same vendored definitions.
 * Both share what follows. Spans are kept in memory for the join (trace-join.ts) and each accepted
 * payload is handed to the `--otlp-forward` queue unchanged (otlp-forward.ts). A payload that does
 * not decode is refused (HTTP 400, gRPC INVALID_ARGUMENT), counted, and one warning per kind; the
 * run goes on. A port that cannot be bound is one warning and the run is measured without traces.
 */
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import type * as Grpc from '@grpc/grpc-js';
import type { MetricsListen, OtlpListen } from '../../config/observe-spec.js';
import { decodeTraceJson, decodeTraceProtobuf, PayloadError, type ReceivedSpan } from '../../util/otlp-spans.js';
import { grpcExportService, grpcModule } from '../../util/otlp-transport.js';
import type { OtlpForwarder } from './otlp-forward.js';

/** Larger payloads are refused (413): a batch of spans is tens of KiB. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

export interface OtlpReceiver {
  protocol: 'http' | 'grpc';
  /** http://host:port (the traces endpoint is `${url}/v1/traces`); grpc://host:port for gRPC. */
  url: string;
  /** What to point an exporter at: `${url}/v1/traces` (HTTP) or the grpc:// URL. */
  endpoint: string;
  spans(): readonly ReceivedSpan[];
  /** --otlp-forward's queue (its figures come from its close()); null without it. */
  readonly forward: OtlpForwarder | null;
  /** Payloads refused as malformed. */
  readonly malformed: number;
  /** Resolves when `count` spans have arrived or `ms` passed (an engine exports in batches). */
  waitFor(count: (spans: readonly ReceivedSpan[]) => boolean, ms: number): Promise<void>;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  /** --otlp-forward: every accepted payload is also offered to this queue. */
  forward?: OtlpForwarder | null;
}

/** Null (after one warning line) when the address cannot be bound. A bare MetricsListen is OTLP/HTTP. */
export function startOtlpReceiver(listen: MetricsListen | OtlpListen, warn: (line: string) => void, opts: ReceiverOptions = {}): Promise<OtlpReceiver | null> {
  const store = new SpanStore(warn, opts.forward ?? null);
  const started = 'protocol' in listen && listen.protocol === 'grpc' ? startGrpc(listen, store, warn) : startHttp(listen, store, warn);
  return started.then(async (r) => {
    if (r === null) await opts.forward?.close(0);
    return r;
  });
}

/** What both transports share: the spans, the refusals and their warnings, the waiters, the forward. */
class SpanStore {
  readonly spans: ReceivedSpan[] = [];
  malformed = 0;
  private readonly warned = new Set<string>();
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly warn: (line: string) => void,
    readonly forward: OtlpForwarder | null,
  ) {}

  accept(got: readonly ReceivedSpan[], payload: { bytes: Uint8Array; json: boolean }): void {
    this.spans.push(...got);
    this.forward?.offer(payload.bytes, payload.json, got);
    for (const w of this.waiters) w();
  }

  refuse(err: PayloadError): void {
    this.malformed++;
    if (this.warned.has(err.message)) return;
    this.warned.add(err.message);
    this.warn(`--otlp-receiver: refused a trace payload: ${err.message}`);
  }

  receiver(protocol: 'http' | 'grpc', url: string, endpoint: string, close: () => Promise<void>): OtlpReceiver {
    const { spans, waiters, forward } = this;
    const malformed = () => this.malformed;
    return {
      protocol,
      url,
      endpoint,
      forward,
      spans: () => spans,
      get malformed() {
        return malformed();
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
      // a forward queue not closed by the end of the run (an error before the join) goes with the receiver
      close: async () => {
        await close();
        await forward?.close(0);
      },
    };
  }
}

const hostOf = (host: string): string => (host === '0.0.0.0' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host);

function startHttp(listen: MetricsListen, store: SpanStore, warn: (line: string) => void): Promise<OtlpReceiver | null> {
  const app = new Hono();
  app.post('/v1/traces', async (c) => {
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const body = new Uint8Array(await c.req.arrayBuffer());
    if (body.length > MAX_BODY_BYTES) return c.text('payload too large', 413);
    try {
      const got = type === 'application/json' ? decodeTraceJson(Buffer.from(body).toString('utf8')) : type === 'application/x-protobuf' ? decodeTraceProtobuf(body) : null;
      if (got === null) throw new PayloadError(`unsupported content type "${type.slice(0, 60)}" (OTLP/HTTP sends application/x-protobuf or application/json)`);
      store.accept(got, { bytes: body, json: type === 'application/json' });
    } catch (err) {
      if (!(err instanceof PayloadError)) throw err;
      store.refuse(err);
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
      const url = `http://${hostOf(listen.host)}:${info.port}`;
      resolve(
        store.receiver('http', url, `${url}/v1/traces`, () =>
          new Promise<void>((r) => {
            (server as { closeAllConnections?: () => void }).closeAllConnections?.();
            server.close(() => r());
          }),
        ),
      );
    });
    server.once('error', onError);
  });
}

function startGrpc(listen: MetricsListen, store: SpanStore, warn: (line: string) => void): Promise<OtlpReceiver | null> {
  const grpc = grpcModule();
  const server = new grpc.Server({ 'grpc.max_receive_message_length': MAX_BODY_BYTES });
  server.addService(grpcExportService('traces'), {
    Export: (call: Grpc.ServerUnaryCall<Buffer, Buffer>, callback: Grpc.sendUnaryData<Buffer>) => {
      const bytes = new Uint8Array(call.request.buffer, call.request.byteOffset, call.request.byteLength);
      try {
        store.accept(decodeTraceProtobuf(bytes), { bytes, json: false });
      } catch (err) {
        if (!(err instanceof PayloadError)) throw err;
        store.refuse(err);
        callback({ code: grpc.status.INVALID_ARGUMENT, details: err.message });
        return;
      }
      // an empty ExportTraceServiceResponse (no partial_success): everything was accepted
      callback(null, Buffer.alloc(0));
    },
  });
  const address = `${listen.host.includes(':') ? `[${listen.host}]` : listen.host}:${listen.port}`;
  return new Promise((resolve) => {
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, port) => {
      if (err) {
        const code = /EADDRINUSE|address already in use/i.test(err.message) ? 'EADDRINUSE' : err.message.split('\n')[0]!.slice(0, 120);
        warn(`--otlp-receiver grpc://${address}: cannot listen (${code}); the run goes on without traces`);
        server.forceShutdown();
        resolve(null);
        return;
      }
      const url = `grpc://${hostOf(listen.host)}:${port}`;
      resolve(
        store.receiver('grpc', url, url, () =>
          new Promise<void>((r) => {
            server.forceShutdown();
            r();
          }),
        ),
      );
    });
  });
}
