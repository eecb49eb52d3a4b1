/** The forwarder's figures and summary line, apart from the forwarder (it loads protobufjs): what printing a run needs. */

/** result.json `traces.forward` (docs/result-schema.md). */
export interface ForwardFigures {
  /** The collector, credentials redacted. */
  url: string;
  protocol: 'http' | 'grpc';
  payloads_forwarded: number;
  /** Not sent: the queue was full, or still held at the end of the drain. */
  payloads_dropped: number;
  /** Sent and refused, or not reached (network error, timeout). */
  payloads_failed: number;
  queue_limit: number;
}

/** The summary's line, e.g. "traces forwarded to http://collector:4318/v1/traces: 12 payloads (0 dropped, 0 failed)". */
export function forwardLine(f: ForwardFigures): string {
  return `traces forwarded to ${f.url}: ${f.payloads_forwarded} payload${f.payloads_forwarded === 1 ? '' : 's'} (${f.payloads_dropped} dropped, ${f.payloads_failed} failed)`;
}
