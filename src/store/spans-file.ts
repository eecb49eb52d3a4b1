/**
 * Spans in files: the run's `spans.jsonl` and a collector's file-exporter output (`--spans FILE`).
 * Both are OTLP/JSON lines — one ExportTraceServiceRequest object per line, the shape the
 * OpenTelemetry Collector's `file` exporter writes — so a run's saved spans can be loaded into any
 * OpenTelemetry tool and a collector's file read back by infermeter (docs/observe.md §Traces).
 *
 * Reading is streamed (fixed-size reads split into lines, each decoded as it ends): a collector's
 * file of any size is never one string. A line that does not decode is counted and skipped, with
 * one warning for the whole file. Spans whose trace id the caller does not want (other services'
 * traffic) are counted and dropped as they are read, so memory is the run's spans only.
 */
import { decodeTraceJson, encodeTraceJson, PayloadError, type ReceivedSpan } from '../util/otlp-spans.js';
import { forEachLine } from './records-reader.js';

/** The version of what infermeter writes in spans.jsonl, as a resource attribute of each line. */
export const SPANS_FILE_SCHEMA = 'infermeter.spans/1';
export { SPANS_FILE } from './spans-file-name.js';

/** Spans per line of spans.jsonl (one export request each, as an exporter's batches). */
const SPANS_PER_LINE = 512;

/** spans.jsonl's lines: one OTLP/JSON ExportTraceServiceRequest per up to 512 spans. */
export function spansFileLines(spans: readonly ReceivedSpan[]): Array<Record<string, unknown>> {
  const lines: Array<Record<string, unknown>> = [];
  for (let i = 0; i < spans.length; i += SPANS_PER_LINE) lines.push(encodeTraceJson(spans.slice(i, i + SPANS_PER_LINE), { 'infermeter.schema': SPANS_FILE_SCHEMA }));
  return lines;
}

export interface SpansRead {
  /** The spans kept, in file order. */
  spans: ReceivedSpan[];
  /** Spans read but not kept (their trace id is not wanted). */
  dropped: number;
  /** Non-blank lines read. */
  lines: number;
  /** Lines that are not an OTLP/JSON trace request (skipped). */
  malformed: number;
}

export interface SpansReadOptions {
  /** Keep only spans of these trace ids (the run's); absent: keep all. */
  keep?: ReadonlySet<string>;
  /** Bytes per read (tests cut lines everywhere with small ones). */
  chunkBytes?: number;
  /** The one warning line about malformed lines goes here. */
  warn?: (line: string) => void;
}

/** @throws UserError when the file cannot be read. */
export function readSpansFile(path: string, opts: SpansReadOptions = {}): SpansRead {
  const out: SpansRead = { spans: [], dropped: 0, lines: 0, malformed: 0 };
  let first: string | null = null;
  const onLine = (bytes: Buffer, lineNo: number) => {
    const text = bytes.toString('utf8').trim();
    if (text === '') return;
    out.lines++;
    try {
      for (const s of decodeTraceJson(text)) {
        if (!opts.keep || opts.keep.has(s.trace_id)) out.spans.push(s);
        else out.dropped++;
      }
    } catch (err) {
      if (!(err instanceof PayloadError)) throw err;
      out.malformed++;
      first ??= `line ${lineNo}: ${err.message}`;
    }
  };
  const { tail, tailLineNo } = forEachLine(path, onLine, opts.chunkBytes ? { chunkBytes: opts.chunkBytes } : {}, 'spans');
  if (tail !== null) onLine(Buffer.from(tail, 'utf8'), tailLineNo);
  if (out.malformed > 0) opts.warn?.(`${path}: ${out.malformed} of ${out.lines} lines are not OTLP/JSON trace requests and were skipped (first: ${first})`);
  return out;
}
