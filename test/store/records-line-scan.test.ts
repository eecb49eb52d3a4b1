/**
 * The byte scan of a records.jsonl line (record/jsonl-line-scan.ts) against JSON.parse +
 * recordFromObject: random records in our writer's shape, and hand-mutated lines (odd numbers,
 * escapes, unicode, reordered, missing, extra or mistyped fields), read both ways give the same
 * column views, field by field, or the same error.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recordToJsonLine } from '../../src/record/jsonl.js';
import { MicrosBuffer } from '../../src/record/jsonl-chunks.js';
import { newScannedRecord, scanRecordLine } from '../../src/record/jsonl-line-scan.js';
import { plainRecord, RecordColumns } from '../../src/record/record-columns.js';
import { emptyRecord, ERROR_CLASSES, type RequestRecord } from '../../src/record/record.js';
import { readRecordColumns, readRecordsFile } from '../../src/store/records-reader.js';
import { tempDir } from '../helpers/temp-dir.js';

const time = fc.oneof(fc.integer({ min: 0, max: 10_000_000 }).map((k) => k / 1000), fc.integer({ min: 0, max: 10 ** 6 }));
const count = fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 5000 }));
const text = fc.oneof(fc.constant(null), fc.string(), fc.constantFrom('length', 'stop', 'naïve ☃', 'a"b', 'tab\there', '\u2028', 'x\\y'));
const record = fc
  .record({
    id: fc.integer({ min: 0, max: 2 ** 40 }),
    phase: fc.constantFrom('warmup', 'measure', 'cooldown', 'ramp_up', 'ramp_down'),
    stage: fc.integer({ min: 0, max: 5 }),
    worker: fc.integer({ min: 0, max: 100 }),
    task: text,
    session: text,
    turn: count,
    sent_ms: time,
    first_token_ms: fc.oneof(fc.constant(null), time),
    chunk_ms: fc.array(time, { maxLength: 20 }),
    end_ms: time,
    prompt_tokens: count,
    output_tokens: fc.integer({ min: 0, max: 5000 }),
    requested_output_tokens: count,
    token_source: fc.constantFrom('usage', 'tokenizer', 'chunks', 'none'),
    client_prompt_tokens: count,
    status: fc.constantFrom('ok', 'error', 'timeout', 'cancelled'),
    error_class: fc.oneof(fc.constant(null), fc.constantFrom(...ERROR_CLASSES)),
    http_status: fc.oneof(fc.constant(null), fc.integer({ min: 100, max: 599 })),
    finish_reason: text,
  })
  .map((f): RequestRecord => {
    // Times after the send, so that the check on read (records-check.ts) passes most files and the fields are compared.
    const at = (t: number): number => Math.round((f.sent_ms + t) * 1000) / 1000;
    const chunks = f.chunk_ms.map(at).sort((a, b) => a - b);
    const end = Math.max(at(f.end_ms), chunks.at(-1) ?? 0, f.first_token_ms === null ? 0 : at(f.first_token_ms));
    return { ...emptyRecord(0, 0), ...f, scheduled_ms: f.sent_ms, first_token_ms: f.first_token_ms === null ? null : at(f.first_token_ms), end_ms: end, chunk_ms: Float64Array.from(chunks) } as RequestRecord;
  });

/** Hand mutations of a line: each gives text our writer never writes, or writes rarely. */
const ODD_NUMBERS = ['1e21', '-0', '0.30000000000000004', '1.2345', '12345678901234567890', '9007199254740993', '-5', '0.5e1', '123456789012345.678', '900719925474099.3', '01', '1.', '"7"', 'true', 'null', '[]', '{}'];
const mutation = fc.oneof(
  fc.record({ kind: fc.constant('number' as const), nth: fc.nat(), to: fc.constantFrom(...ODD_NUMBERS) }),
  fc.record({ kind: fc.constant('reorder' as const), seed: fc.nat() }),
  fc.record({ kind: fc.constant('drop' as const), nth: fc.nat() }),
  fc.record({ kind: fc.constant('extra' as const), key: fc.constantFrom('error_message', 'output_text', 'attempt', 'foo', 'id', 'chunk_ms', 'trace_id'), value: fc.constantFrom('"x"', '3', 'null', '[1.5]') }),
  fc.record({ kind: fc.constant('space' as const), nth: fc.nat() }),
  fc.record({ kind: fc.constant('enum' as const), key: fc.constantFrom('phase', 'status', 'error_class', 'token_source'), to: fc.constantFrom('"bogus"', 'null', '1') }),
);

function mutate(line: string, m: Record<string, unknown>): string {
  switch (m.kind) {
    case 'number': {
      const nums = [...line.matchAll(/(?<=[:,[])-?\d+(\.\d+)?(?=[,\]}])/g)];
      if (nums.length === 0) return line;
      const hit = nums[(m.nth as number) % nums.length]!;
      return line.slice(0, hit.index) + (m.to as string) + line.slice(hit.index! + hit[0].length);
    }
    case 'reorder': {
      const o = JSON.parse(line) as Record<string, unknown>;
      const keys = Object.keys(o);
      const k = (m.seed as number) % keys.length;
      const out: Record<string, unknown> = {};
      for (const key of [...keys.slice(k), ...keys.slice(0, k)]) out[key] = o[key];
      return JSON.stringify(out);
    }
    case 'drop': {
      const o = JSON.parse(line) as Record<string, unknown>;
      const keys = Object.keys(o);
      delete o[keys[(m.nth as number) % keys.length]!];
      return JSON.stringify(o);
    }
    case 'extra':
      return `${line.slice(0, -1)},"${m.key as string}":${m.value as string}}`;
    case 'space': {
      const at = (m.nth as number) % line.length;
      return line.slice(0, at) + ' ' + line.slice(at);
    }
    case 'enum':
      return line.replace(new RegExp(`"${m.key as string}":("[^"]*"|null)`), `"${m.key as string}":${m.to as string}`);
  }
  return line;
}

/** The reader's result both ways: the scan path (readRecordColumns) and JSON.parse's (readRecordsFile into the same columns). */
function readBoth(path: string, chunkBytes: number): { scan: unknown; parse: unknown } {
  const outcome = (f: () => RequestRecord[]): unknown => {
    try {
      return { records: f().map((r) => plainRecord(r)) };
    } catch (err) {
      return { error: (err as Error).message };
    }
  };
  return {
    scan: outcome(() => readRecordColumns(path, { chunkBytes }).records),
    parse: outcome(() => {
      const cols = new RecordColumns();
      for (const r of readRecordsFile(path, { chunkBytes }).records) cols.add(r);
      return cols.records();
    }),
  };
}

describe('jsonl-line-scan', () => {
  it('scans every line our writer writes for a plain record', () => {
    fc.assert(
      fc.property(record, (r) => {
        const line = recordToJsonLine(r);
        // A string the writer escapes is left to JSON.parse; every other line is scanned.
        if (line.includes('\\')) return;
        expect(scanRecordLine(Buffer.from(line), new MicrosBuffer(), newScannedRecord())).toBe(r.chunk_ms.length);
      }),
      { numRuns: 300 },
    );
  });

  it('gives the same column views or the same error as JSON.parse, lines cut across reads', () => {
    const dir = tempDir('line-scan');
    let n = 0;
    fc.assert(
      fc.property(fc.array(fc.tuple(record, fc.option(mutation, { freq: 2 })), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 97 }), (rows, chunkBytes) => {
        const lines = rows.map(([r, m]) => (m === null ? recordToJsonLine(r) : mutate(recordToJsonLine(r), m as Record<string, unknown>)));
        const path = join(dir, `r${n++}.jsonl`);
        writeFileSync(path, lines.join('\n') + '\n');
        const { scan, parse } = readBoth(path, chunkBytes);
        expect(scan).toEqual(parse);
      }),
      { numRuns: 400 },
    );
  });
});
