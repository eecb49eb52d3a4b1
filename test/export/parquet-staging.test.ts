/**
 * The Parquet export's staging file (export/parquet-export.ts): every value of every column comes
 * back from the Parquet exactly as the record column gives it, including the cells a CSV dialect
 * could confuse — null against an empty text, a text that reads "\N", quotes, commas, newlines,
 * unicode, the extremes of doubles, integers past 2^31, empty and long chunk lists — and the
 * rows keep the order they were given in, across batches.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, describe, expect, it } from 'vitest';
import { stagingCell, writeParquetOfBatches } from '../../src/export/parquet-export.js';
import { CHUNK_COLUMN, RECORD_COLUMNS } from '../../src/export/record-columns.js';
import { emptyRecord, type RequestRecord } from '../../src/record/record.js';

const dir = mkdtempSync(join(tmpdir(), 'infermeter-parquet-staging-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TEXTS = ['', '\\N', 'N', '"', '""', 'a,b', 'line one\nline two', 'cr\r\nlf', 'tab\there', 'quote " inside, and , comma', 'naïve – 東京 🚀', ' leading and trailing ', '\\', 'NULL', 'null'];
// No -0: Parquet's dictionary encoding folds it into 0 whatever the staging (the staged text keeps it, below).
const DOUBLES = [0, 1.5, 0.1 + 0.2, 1e21, 1e-7, 5e-324, Number.MAX_VALUE, -123.456, 2 ** 53 + 2, 1234567.891];

function records(): RequestRecord[] {
  const out: RequestRecord[] = [];
  for (let i = 0; i < 300; i++) {
    const r = emptyRecord(i * 7 + (i % 3), DOUBLES[i % DOUBLES.length]!);
    r.sent_ms = r.scheduled_ms + (i % 5);
    r.first_token_ms = i % 4 === 0 ? null : DOUBLES[(i + 3) % DOUBLES.length]!;
    r.end_ms = r.sent_ms + 10;
    r.task = i % 6 === 0 ? null : TEXTS[i % TEXTS.length]!;
    r.session = i % 2 === 0 ? null : TEXTS[(i + 5) % TEXTS.length]!;
    r.error_message = i % 3 === 0 ? null : TEXTS[(i + 1) % TEXTS.length]!;
    r.output_text = i % 5 === 0 ? null : TEXTS[(i + 2) % TEXTS.length]!;
    r.status = i % 7 === 0 ? 'error' : 'ok';
    r.output_tokens = i % 11;
    r.prompt_tokens = i % 9 === 0 ? null : 2 ** 40 + i;
    r.chunk_ms = Float64Array.from({ length: i % 13 === 0 ? 0 : i % 200 }, (_, k) => r.sent_ms + k * 0.001 + (k % 3) / 7);
    if (i % 10 === 1) r.quality = { kind: 'exact', pass: i % 20 === 1, outcome: 'ok', reason: TEXTS[i % TEXTS.length]! } as RequestRecord['quality'];
    out.push(r);
  }
  return out;
}

describe('Parquet staging file', () => {
  it('gives back every cell exactly, in the order given, across batches', async () => {
    const recs = records();
    const path = join(dir, 'records.parquet');
    function* batches(): Generator<RequestRecord[]> {
      for (let i = 0; i < recs.length; i += 37) yield recs.slice(i, i + 37);
    }
    await writeParquetOfBatches(batches(), path);
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    try {
      const rows = (await conn.runAndReadAll(`SELECT * FROM read_parquet('${path.replace(/'/g, "''")}')`)).getRowObjectsJS() as Array<Record<string, unknown>>;
      expect(rows).toHaveLength(recs.length);
      const cell = (v: unknown): unknown => (typeof v === 'bigint' ? Number(v) : v);
      for (let i = 0; i < rows.length; i++) {
        for (const c of [...RECORD_COLUMNS, CHUNK_COLUMN]) {
          const want = c.get(recs[i]!);
          const got = cell(rows[i]![c.name]);
          expect([i, c.name, got]).toEqual([i, c.name, want instanceof Float64Array ? Array.from(want) : want]);
        }
      }
    } finally {
      conn.closeSync();
      db.closeSync();
    }
  });

  it('writes null and text so that they cannot be confused', () => {
    const text = RECORD_COLUMNS.find((c) => c.type === 'text')!;
    const double = RECORD_COLUMNS.find((c) => c.type === 'double')!;
    expect(stagingCell(text, null)).toBe('\\N');
    expect(stagingCell(text, '\\N')).toBe('"\\N"');
    expect(stagingCell(text, '')).toBe('""');
    expect(stagingCell(text, 'say "hi"')).toBe('"say ""hi"""');
    expect(stagingCell(double, -0)).toBe('-0');
    expect(stagingCell(CHUNK_COLUMN, Float64Array.of(1.5, 2))).toBe('"[1.5,2]"');
  });
});
