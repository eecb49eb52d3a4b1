/**
 * The end of a run with --otlp-receiver or --spans: the built-in simulator posts its last spans,
 * the receiver waits (up to --otlp-wait) until every traced request's span has come — an engine
 * exports in batches, vLLM every 5 s — a collector's file-exporter output is read, and the spans
 * are joined to the records. `analyze` joins a saved run's spans.jsonl (or --spans) the same way
 * (traceFigures), so both give the same figures.
 */
import { existsSync } from 'node:fs';
import { joinTraces, tracedRequests, type TraceFigures } from '../observe/otlp/trace-join.js';
import type { OtlpReceiver } from '../observe/otlp/otlp-receiver.js';
import { atRecordResolution as us } from '../record/jsonl.js';
import type { RequestRecord } from '../record/record.js';
import { makeWindows } from '../report/data/windows.js';
import { readSpansFile } from '../store/spans-file.js';
import type { ReceivedSpan } from '../util/otlp-spans.js';
import type { OpenTarget } from './run-target.js';

/** The join over the report's windows; `refused`: payloads or lines that did not decode, `dropped`: spans of other traces not kept. */
export function traceFigures(records: readonly RequestRecord[], spans: readonly ReceivedSpan[], counts: { refused: number; dropped: number }): TraceFigures {
  let endMs = 0;
  for (const r of records) endMs = Math.max(endMs, us(r.end_ms), us(r.sent_ms), us(r.scheduled_ms));
  const { figures } = joinTraces(records, spans, { windows: makeWindows(endMs), spansDropped: counts.dropped });
  figures.payloads_refused = counts.refused;
  return figures;
}

/** The trace ids of the run's records: what a file's spans are kept by. */
export const runTraceIds = (records: readonly RequestRecord[]): Set<string> => new Set(records.map((r) => r.trace_id).filter((t): t is string => !!t));

export async function collectTraces(
  sources: { receiver: OtlpReceiver | null; spansFile: string | null },
  target: Pick<OpenTarget, 'flushSpans'>,
  records: readonly RequestRecord[],
  waitMs: number,
  log: (line: string) => void,
): Promise<{ figures: TraceFigures; spans: readonly ReceivedSpan[] }> {
  const { receiver, spansFile } = sources;
  let spans: readonly ReceivedSpan[] = [];
  let refused = 0;
  let dropped = 0;
  // The built-in simulator's last spans (to the receiver, or to the user's collector); a no-op for a real server.
  await target.flushSpans();
  if (receiver) {
    const wanted = tracedRequests(records).map((r) => r.trace_id!);
    const allHere = (got: readonly ReceivedSpan[]): boolean => {
      const ids = new Set(got.map((s) => s.trace_id));
      return wanted.every((t) => ids.has(t));
    };
    if (!allHere(receiver.spans())) {
      log(`waiting up to ${waitMs / 1000} s for the server's last spans (--otlp-wait)`);
      await receiver.waitFor(allHere, waitMs);
    }
    spans = receiver.spans();
    refused += receiver.malformed;
  }
  if (spansFile) {
    if (!existsSync(spansFile)) log(`--spans ${spansFile}: no such file (yet?); the run's traces are joined without it (\`infermeter analyze RUN --spans ${spansFile}\` joins it later)`);
    else {
      const read = readSpansFile(spansFile, { keep: runTraceIds(records), warn: log });
      // A span the receiver got too (the collector also forwards to infermeter) is counted once.
      const seen = new Set(spans.map((s) => `${s.trace_id}/${s.span_id}`));
      spans = [...spans, ...read.spans.filter((s) => !seen.has(`${s.trace_id}/${s.span_id}`))];
      refused += read.malformed;
      dropped += read.dropped;
    }
  }
  const figures = traceFigures(records, spans, { refused, dropped });
  // --otlp-forward: what reached the user's collector (the queue drains for a few seconds)
  const forward = await receiver?.forward?.close();
  if (forward) figures.forward = forward;
  return { figures, spans };
}
