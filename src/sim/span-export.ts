/**
 * The simulated engine's request spans over OTLP — OTLP/HTTP protobuf to an http(s):// traces URL,
 * OTLP/gRPC to a grpc(s):// one (util/otlp-transport.ts) — as vLLM's `llm_request` span
 * carries them (`gen_ai.latency.*` in seconds), with the engine's own ground-truth times: queue =
 * first scheduled − arrival, prefill = first token − first scheduled, decode = last token − first
 * token, TTFT and e2e from arrival. A request's incoming W3C traceparent is continued (its trace id,
 * its span as parent), so the client's records join the spans exactly as with vLLM.
 *
 * Spans of finished requests are batched and posted every EXPORT_INTERVAL_MS and on flush(); a
 * failed post is dropped after one warning (an exporter never holds a run up).
 */
import { randomBytes } from 'node:crypto';
import { encodeTraceProtobuf, type ReceivedSpan } from '../util/otlp-spans.js';
import { otlpSender, type OtlpSender } from '../util/otlp-transport.js';
import type { SimStream } from './http/sim-stream.js';

const EXPORT_INTERVAL_MS = 200;
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

const unixNs = (perfMs: number): string => (BigInt(Math.round((performance.timeOrigin + perfMs) * 1000)) * 1000n).toString();

/** The span of a finished stream, or null when it never produced a token. */
export function spanOfStream(s: SimStream, traceparent: string | null, modelName: string): ReceivedSpan | null {
  if (Number.isNaN(s.firstTokenMs) || Number.isNaN(s.endMs) || Number.isNaN(s.admitMs)) return null;
  const m = traceparent ? TRACEPARENT.exec(traceparent.trim().toLowerCase()) : null;
  const arrival = s.req.arrivalMs;
  const sec = (ms: number) => ms / 1000;
  return {
    trace_id: m ? m[1]! : randomBytes(16).toString('hex'),
    span_id: randomBytes(8).toString('hex'),
    parent_span_id: m ? m[2]! : null,
    name: 'llm_request',
    start_unix_ns: unixNs(arrival),
    end_unix_ns: unixNs(s.endMs),
    attributes: {
      'gen_ai.response.model': modelName,
      'gen_ai.request.id': `sim-${s.req.id}`,
      'gen_ai.usage.prompt_tokens': s.req.promptTokens,
      'gen_ai.usage.completion_tokens': s.emitted,
      'gen_ai.latency.time_in_queue': sec(s.admitMs - arrival),
      'gen_ai.latency.time_to_first_token': sec(s.firstTokenMs - arrival),
      'gen_ai.latency.time_in_model_prefill': sec(s.firstTokenMs - s.admitMs),
      'gen_ai.latency.time_in_model_decode': sec(s.endMs - s.firstTokenMs),
      'gen_ai.latency.time_in_model_inference': sec(s.endMs - s.admitMs),
      'gen_ai.latency.e2e': sec(s.endMs - arrival),
    },
  };
}

export class SpanExporter {
  private batch: ReceivedSpan[] = [];
  private readonly timer: NodeJS.Timeout;
  private inflight: Promise<void> = Promise.resolve();
  private warned = false;
  private readonly sender: OtlpSender;

  /** @throws Error when `url` is not an OTLP endpoint. */
  constructor(
    /** The OTLP/HTTP traces URL (…/v1/traces), or grpc://HOST:PORT for OTLP/gRPC. */
    private readonly url: string,
    private readonly serviceName: string,
    private readonly warn: (line: string) => void,
  ) {
    this.sender = otlpSender(url, 'traces');
    this.timer = setInterval(() => void this.flush(), EXPORT_INTERVAL_MS);
    this.timer.unref();
  }

  add(span: ReceivedSpan): void {
    this.batch.push(span);
  }

  /** Posts what is batched; resolves when every post so far has settled. */
  flush(): Promise<void> {
    if (this.batch.length > 0) {
      const spans = this.batch;
      this.batch = [];
      const body = encodeTraceProtobuf(spans, this.serviceName);
      this.inflight = this.inflight.then(() =>
        this.sender.send(body, 5000).then(
          () => {},
          (err: unknown) => {
            if (this.warned) return;
            this.warned = true;
            this.warn(`simulator: cannot export spans to ${this.url} (${err instanceof Error ? err.message : String(err)}); spans dropped`);
          },
        ),
      );
    }
    return this.inflight;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
    this.sender.close();
  }
}
