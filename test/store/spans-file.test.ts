/**
 * Spans in files (store/spans-file.ts): a collector file-exporter output (the fixture: OTLP/JSON
 * with hex ids and int64 strings, plain protobuf-JSON with base64 ids and a time as a JSON number,
 * a blank line, a cut line, a span with a bad id) read line by line with reads that cut every
 * line; spans.jsonl written by infermeter read back unchanged.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readSpansFile, SPANS_FILE_SCHEMA, spansFileLines } from '../../src/store/spans-file.js';
import type { ReceivedSpan } from '../../src/util/otlp-spans.js';
import { tempDir } from '../helpers/temp-dir.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/otlp/collector-file-exporter.jsonl', import.meta.url));
const T1 = '0af7651916cd43dd8448eb211c80319c';
const T2 = '1af7651916cd43dd8448eb211c80319c';

describe('a collector file exporter’s output', () => {
  for (const chunkBytes of [7, 1 << 20]) {
    it(`reads every span that decodes, counts the bad lines with one warning (reads of ${chunkBytes} B)`, () => {
      const warnings: string[] = [];
      const read = readSpansFile(FIXTURE, { chunkBytes, warn: (l) => warnings.push(l) });
      // 5 non-blank lines: 2 decode (3 spans), a cut JSON line and a span with a 3-hex-digit trace id do not
      expect(read).toMatchObject({ lines: 4, malformed: 2, dropped: 0 });
      expect(read.spans.map((s) => s.trace_id)).toEqual([T1, T2, 'ffffffffffffffffffffffffffffff01']);
      expect(read.spans[0]).toEqual({
        trace_id: T1,
        span_id: 'b7ad6b7169203331',
        parent_span_id: '00f067aa0ba902b7',
        name: 'llm_request',
        start_unix_ns: '1764633600000000000',
        end_unix_ns: '1764633600500000000',
        attributes: { 'gen_ai.response.model': 'm', 'gen_ai.usage.prompt_tokens': 512, 'gen_ai.latency.time_in_queue': 0.01, 'gen_ai.latency.time_in_model_prefill': 0.05, 'gen_ai.latency.time_to_first_token': 0.06, 'gen_ai.latency.time_in_model_decode': 0.04 },
      });
      // base64 ids (plain protobuf-JSON) are the same bytes in hex; a time written as a JSON number stays whole
      expect(read.spans[1]).toMatchObject({ trace_id: T2, span_id: 'c7ad6b7169203331', parent_span_id: null, start_unix_ns: '1764633601000000000' });
      expect(warnings).toEqual([`${FIXTURE}: 2 of 4 lines are not OTLP/JSON trace requests and were skipped (first: line 3: not valid JSON)`]);
    });
  }

  it('keeps only the run’s traces and counts the others as dropped', () => {
    const read = readSpansFile(FIXTURE, { keep: new Set([T2]) });
    expect(read.spans.map((s) => s.trace_id)).toEqual([T2]);
    expect(read.dropped).toBe(2);
  });

  it('a file that cannot be read is one line naming it', () => {
    expect(() => readSpansFile(join(tempDir('spans-file'), 'absent.jsonl'))).toThrow(/absent\.jsonl: cannot read spans \(ENOENT\)/);
  });
});

describe('spans.jsonl', () => {
  it('is OTLP/JSON lines, one export request per 512 spans, read back unchanged', () => {
    const spans: ReceivedSpan[] = Array.from({ length: 513 }, (_, i) => ({
      trace_id: i.toString(16).padStart(32, '0'),
      span_id: (i + 1).toString(16).padStart(16, '0'),
      parent_span_id: i % 2 ? 'aaaaaaaaaaaaaaaa' : null,
      name: 'llm_request',
      start_unix_ns: (1764633600000000000n + BigInt(i)).toString(),
      end_unix_ns: (1764633600000000001n + BigInt(i)).toString(),
      attributes: { 'gen_ai.latency.time_in_queue': i / 7, 'gen_ai.usage.prompt_tokens': i, 'gen_ai.response.model': 'm', ok: i % 3 === 0 },
    }));
    const lines = spansFileLines(spans);
    expect(lines).toHaveLength(2);
    const first = lines[0] as { resourceSpans: Array<{ resource: { attributes: unknown[] }; scopeSpans: Array<{ spans: Array<Record<string, unknown>> }> }> };
    expect(first.resourceSpans[0]!.resource.attributes).toEqual([{ key: 'infermeter.schema', value: { stringValue: SPANS_FILE_SCHEMA } }]);
    const s1 = first.resourceSpans[0]!.scopeSpans[0]!.spans[1]!;
    // the OTLP/JSON encoding: hex ids, 64-bit integers as decimal strings
    expect(s1).toMatchObject({ traceId: spans[1]!.trace_id, startTimeUnixNano: '1764633600000000001' });
    expect((s1.attributes as unknown[])[1]).toEqual({ key: 'gen_ai.usage.prompt_tokens', value: { intValue: '1' } });
    const path = join(tempDir('spans-file'), 'spans.jsonl');
    writeFileSync(path, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    expect(readSpansFile(path, { chunkBytes: 1000 })).toEqual({ spans, dropped: 0, lines: 2, malformed: 0 });
  });
});
