/**
 * The end of a run with --otlp-receiver: the built-in simulator posts its last spans, the
 * receiver waits (up to --otlp-wait) until every traced request's span has come — an engine
 * exports in batches, vLLM every 5 s — and the spans are joined to the records.
 */
import { joinTraces, tracedRequests, type TraceFigures } from '../observe/otlp/trace-join.js';
import type { OtlpReceiver } from '../observe/otlp/otlp-receiver.js';
import type { RequestRecord } from '../record/record.js';
import type { ReceivedSpan } from '../util/otlp-spans.js';
import type { OpenTarget } from './run-target.js';

export async function collectTraces(
  receiver: OtlpReceiver,
  target: Pick<OpenTarget, 'flushSpans'>,
  records: readonly RequestRecord[],
  waitMs: number,
  log: (line: string) => void,
): Promise<{ figures: TraceFigures; spans: readonly ReceivedSpan[] }> {
  await target.flushSpans();
  const wanted = tracedRequests(records).map((r) => r.trace_id!);
  const allHere = (spans: readonly ReceivedSpan[]): boolean => {
    const got = new Set(spans.map((s) => s.trace_id));
    return wanted.every((t) => got.has(t));
  };
  if (!allHere(receiver.spans())) {
    log(`waiting up to ${waitMs / 1000} s for the server's last spans (--otlp-wait)`);
    await receiver.waitFor(allHere, waitMs);
  }
  const { figures } = joinTraces(records, receiver.spans());
  figures.payloads_refused = receiver.malformed;
  // --otlp-forward: what reached the user's collector (the queue drains for a few seconds)
  const forward = await receiver.forward?.close();
  if (forward) figures.forward = forward;
  return { figures, spans: receiver.spans() };
}
