/**
 * `--otlp-forward URL`: every trace payload the receiver accepts is also sent on to the user's own
 * collector, so tracing in their stack is not interrupted while infermeter listens in its place.
 *
 * The receiver never waits for it: `offer` only queues. The queue is bounded (QUEUE_LIMIT payloads
 * and QUEUE_BYTES); a payload that does not fit is dropped and counted. One payload is in flight at
 * a time, in arrival order, each with a timeout; a failed send is counted and not retried (an
 * exporter's retry belongs to the engine). The first failure and the first drop are one warning
 * line each. At the end of the run the queue drains for up to DRAIN_MS; what is left is dropped.
 *
 * Payloads go out unchanged: protobuf as received, OTLP/JSON as received to an OTLP/HTTP collector.
 * Only OTLP/JSON to a gRPC collector is re-encoded, from the spans the receiver kept (ids, times,
 * name and scalar attributes: the resource and non-scalar attributes are lost; docs/observe.md).
 */
import { redactUrl } from '../../util/redact.js';
import { encodeTraceProtobuf, type ReceivedSpan } from '../../util/otlp-spans.js';
import { otlpSender, type OtlpSender } from '../../util/otlp-transport.js';

export const QUEUE_LIMIT = 512;
export const QUEUE_BYTES = 64 * 1024 * 1024;
const SEND_TIMEOUT_MS = 10_000;
export const DRAIN_MS = 5_000;

import type { ForwardFigures } from './forward-line.js';
export { forwardLine, type ForwardFigures } from './forward-line.js';

interface Item {
  bytes: Uint8Array;
  json: boolean;
}

export class OtlpForwarder {
  private readonly sender: OtlpSender;
  private readonly queue: Item[] = [];
  private queuedBytes = 0;
  private sending = false;
  private idle: Array<() => void> = [];
  private readonly counts = { forwarded: 0, dropped: 0, failed: 0 };
  private closed = false;
  private warnedFail = false;
  private warnedDrop = false;

  /** @throws Error (one line) when the URL is not an OTLP endpoint; the spec has checked it already. */
  constructor(
    private readonly url: string,
    private readonly warn: (line: string) => void,
    private readonly limits: { payloads: number; bytes: number; timeoutMs: number } = { payloads: QUEUE_LIMIT, bytes: QUEUE_BYTES, timeoutMs: SEND_TIMEOUT_MS },
  ) {
    this.sender = otlpSender(url, 'traces');
  }

  /** Queues a payload the receiver accepted; never blocks, never throws. */
  offer(bytes: Uint8Array, json: boolean, spans: readonly ReceivedSpan[]): void {
    if (this.closed) {
      this.counts.dropped++;
      return;
    }
    // gRPC carries protobuf: OTLP/JSON is re-encoded from the decoded spans
    const item = json && this.sender.endpoint.protocol === 'grpc' ? { bytes: encodeTraceProtobuf(spans, 'infermeter-forward'), json: false } : { bytes: Uint8Array.from(bytes), json };
    if (this.queue.length >= this.limits.payloads || this.queuedBytes + item.bytes.length > this.limits.bytes) {
      this.drop(1);
      return;
    }
    this.queue.push(item);
    this.queuedBytes += item.bytes.length;
    void this.pump();
  }

  private drop(n: number): void {
    this.counts.dropped += n;
    if (this.warnedDrop || n === 0) return;
    this.warnedDrop = true;
    this.warn(`--otlp-forward: ${this.closed ? 'the end of the run came before' : 'the queue is full (at most ' + String(this.limits.payloads) + ' payloads) before'} ${redactUrl(this.url)} took every payload; payloads dropped (counted in the result)`);
  }

  private async pump(): Promise<void> {
    if (this.sending) return;
    this.sending = true;
    while (this.queue.length > 0) {
      const item = this.queue.shift()!;
      this.queuedBytes -= item.bytes.length;
      try {
        await this.sender.send(item.bytes, this.limits.timeoutMs, item.json);
        this.counts.forwarded++;
      } catch (err) {
        this.counts.failed++;
        if (!this.warnedFail) {
          this.warnedFail = true;
          this.warn(`--otlp-forward: cannot forward spans to ${redactUrl(this.url)} (${err instanceof Error ? err.message : String(err)}); the run goes on, failures counted in the result`);
        }
      }
    }
    this.sending = false;
    for (const r of this.idle.splice(0)) r();
  }

  figures(): ForwardFigures {
    return { url: redactUrl(this.url), protocol: this.sender.endpoint.protocol, payloads_forwarded: this.counts.forwarded, payloads_dropped: this.counts.dropped, payloads_failed: this.counts.failed, queue_limit: this.limits.payloads };
  }

  /** Waits up to `drainMs` for the queue to empty; what is still queued then is dropped. */
  async close(drainMs = DRAIN_MS): Promise<ForwardFigures> {
    this.closed = true;
    if (this.sending || this.queue.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([new Promise<void>((r) => this.idle.push(r)), new Promise<void>((r) => (timer = setTimeout(r, drainMs)))]);
      clearTimeout(timer);
    }
    const left = this.queue.splice(0).length;
    this.queuedBytes = 0;
    if (left > 0) this.drop(left);
    this.sender.close();
    return this.figures();
  }
}
