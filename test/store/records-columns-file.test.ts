/**
 * records.cols (store/records-columns-file.ts): a finished run's columns kept beside records.jsonl
 * and loaded instead of the text while records.jsonl is unchanged. Over random runs of every kind
 * of record, the records loaded from it are those of the text read, value for value (−0, whole
 * records, side fields, blank lines, repeats and their warning); any change of records.jsonl, a
 * damaged or foreign column file, or a run that is not finished falls back to the text.
 */
import { appendFileSync, existsSync, readFileSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { computeMetrics } from '../../src/metrics/index.js';
import { recordToJsonLine } from '../../src/record/jsonl.js';
import { plainRecord, STORED_LAYOUT } from '../../src/record/record-columns.js';
import { emptyRecord, type RequestRecord } from '../../src/record/record.js';
import { COLUMNS_FILE, loadColumnsFile } from '../../src/store/records-columns-file.js';
import { readRecordColumns } from '../../src/store/records-reader.js';
import { lineOf, recordArb } from '../helpers/random-records.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A finished run's folder (result.json beside records.jsonl) holding `lines`. */
function runDir(lines: string[], finished = true): { dir: string; path: string } {
  const dir = tempDir('colfile');
  const path = join(dir, 'records.jsonl');
  writeFileSync(path, lines.join(''));
  if (finished) writeFileSync(join(dir, 'result.json'), '{}\n');
  return { dir, path };
}

function read(path: string): { records: RequestRecord[]; warnings: string[]; truncatedTail: boolean } {
  const warnings: string[] = [];
  const { records, truncatedTail } = readRecordColumns(path, { warn: (l) => warnings.push(l) });
  return { records: records.map(plainRecord), warnings, truncatedTail };
}

/** Deep equality that tells −0 from 0 (toEqual does too; this says where). */
const same = (a: unknown, b: unknown): void => expect(a).toStrictEqual(b);

const record = (id: number, over: Partial<RequestRecord> = {}): RequestRecord => ({
  ...emptyRecord(id, id * 10),
  sent_ms: id * 10,
  first_token_ms: id * 10 + 5,
  chunk_ms: Float64Array.of(id * 10 + 5, id * 10 + 6.5),
  end_ms: id * 10 + 7,
  output_tokens: 2,
  status: 'ok',
  token_source: 'usage',
  ...over,
});
const line = (r: RequestRecord): string => `${recordToJsonLine(r)}\n`;

afterEach(() => {
  delete process.env.INFERMETER_COLUMN_FILE;
});

describe('the column file', () => {
  it('loads the records, warnings and metrics of the text read, value for value (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(recordArb, fc.constantFrom('', '', '', '\n', '   \n'), fc.boolean()), { minLength: 1, maxLength: 30 }),
        (items) => {
          const lines: string[] = [];
          items.forEach(([{ r, exact }, blank, repeat], id) => {
            const l = `${lineOf({ ...r, id }, exact)}\n`;
            lines.push(l, blank);
            if (repeat) lines.push(l);
          });
          const { dir, path } = runDir(lines);
          const text = read(path);
          expect(existsSync(join(dir, COLUMNS_FILE))).toBe(true);
          const kept = loadColumnsFile(path);
          expect(kept).not.toBeNull();
          const loaded = read(path);
          same(loaded, text);
          same(computeMetrics(readRecordColumns(path).records), computeMetrics(text.records));
          // What the store holds: every section the same bytes.
          const a = kept!.columns.stored();
          const b = readRecordColumns(path).columns.stored();
          same(b.rest, a.rest);
          same(b.sections.map((s) => [s.name, s.parts.map((p) => Array.from(p))]), a.sections.map((s) => [s.name, s.parts.map((p) => Array.from(p))]));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('keeps what the columns cannot hold: whole records, −0, side fields, the line numbers of a refusal', () => {
    const lines = [
      line(record(0, { error_message: 'boom', status: 'error', error_class: 'http_5xx', http_status: 500, output_tokens: 0, token_source: 'none', chunk_ms: new Float64Array(0), first_token_ms: null })),
      // Fractional token count: kept whole. −0 in a side field.
      `${JSON.stringify({ ...record(1), chunk_ms: [15, 16.5], prompt_tokens: 2.5, retry_after_ms: 0 }).replace('"retry_after_ms":0', '"retry_after_ms":-0')}\n`,
      '\n',
      line(record(2, { quality: { kind: 'exact', pass: true, outcome: 'correct', reason: 'matched' }, output_text: 'hi' })),
      // Times finer than µs (another tool's file): the doubles themselves.
      `${JSON.stringify({ ...record(3), chunk_ms: [35.0001, 36.25], first_token_ms: 35.0001 })}\n`,
    ];
    const { path } = runDir(lines);
    const text = read(path);
    const loaded = read(path);
    expect(loadColumnsFile(path)).not.toBeNull();
    same(loaded, text);
    expect(loaded.records[1]!.prompt_tokens).toBe(2.5);
    expect(Object.is(loaded.records[1]!.retry_after_ms, -0)).toBe(true);
    expect(loaded.records[3]!.chunk_ms[0]).toBe(35.0001);
    expect(loaded.records[2]!.output_text).toBe('hi');
  });

  it('keeps a column of one value as that value (no bytes), and the store it loads is read-only', () => {
    const lines = [0, 1, 2].map((id) => line(record(id, { stage: 0, worker: 3, prompt_tokens: 7 })));
    lines.push(line(record(3, { stage: 0, worker: 3, prompt_tokens: 8 })));
    const { dir, path } = runDir(lines);
    const text = read(path);
    const b = readFileSync(join(dir, COLUMNS_FILE));
    const header = JSON.parse(b.subarray(16, 16 + b.readUInt32LE(8)).toString('utf8')) as { sections: { name: string; constant?: number }[] };
    const constant = Object.fromEntries(header.sections.map((s) => [s.name, s.constant]));
    expect(constant.worker).toBe(3);
    expect(constant.stage).toBe(0);
    expect(constant.prompt_tokens).toBeUndefined();
    expect(constant.sent_ms).toBeUndefined();
    const kept = loadColumnsFile(path)!;
    same(kept.columns.records().map(plainRecord), text.records);
    expect(() => kept.columns.add(record(4))).toThrow(/read-only/);
  });

  it('is not used once records.jsonl changes: appended, rewritten at the same size, touched', () => {
    const { path } = runDir([line(record(0)), line(record(1))]);
    read(path);
    expect(loadColumnsFile(path)).not.toBeNull();

    appendFileSync(path, line(record(2)));
    expect(loadColumnsFile(path)).toBeNull();
    expect(read(path).records.map((r) => r.id)).toEqual([0, 1, 2]);
    expect(loadColumnsFile(path)).not.toBeNull();

    // Same size, other content, mtime put back: the sample hash (and ctime) still tell.
    const before = statSync(path);
    const text = readFileSync(path, 'utf8').replace('"output_tokens":2', '"output_tokens":3');
    expect(text.length).toBe(before.size);
    writeFileSync(path, text);
    utimesSync(path, before.atime, before.mtime);
    expect(loadColumnsFile(path)).toBeNull();
    expect(read(path).records[0]!.output_tokens).toBe(3);

    read(path);
    const now = new Date(Date.now() + 5000);
    utimesSync(path, now, now);
    expect(loadColumnsFile(path)).toBeNull();
  });

  it('a damaged, foreign or truncated column file is no column file: the text is read', () => {
    const { dir, path } = runDir([line(record(0)), line(record(1))]);
    const text = read(path);
    const cols = join(dir, COLUMNS_FILE);
    const good = readFileSync(cols);
    for (const damage of [
      (b: Buffer) => b.subarray(0, b.length - 8),
      (b: Buffer) => Buffer.concat([b, Buffer.alloc(8)]),
      (b: Buffer) => Buffer.from(b).fill(0x41, 0, 4),
      (b: Buffer) => Buffer.from(b.toString('latin1').replace(`"layout":${STORED_LAYOUT}`, '"layout":99'), 'latin1'),
      (b: Buffer) => Buffer.from(b.toString('latin1').replace('"name":"sent_ms","bytes_per_value":8', '"name":"sent_ms","bytes_per_value":4'), 'latin1'),
      () => Buffer.alloc(0),
    ]) {
      writeFileSync(cols, damage(good));
      expect(loadColumnsFile(path)).toBeNull();
      same(read(path), text);
      // The text read put a good one back.
      expect(loadColumnsFile(path)).not.toBeNull();
    }
    truncateSync(cols, 100);
    same(read(path), text);
  });

  it('is written only for a finished run read whole, and never when turned off', () => {
    const unfinished = runDir([line(record(0))], false);
    read(unfinished.path);
    expect(existsSync(join(unfinished.dir, COLUMNS_FILE))).toBe(false);

    // A killed run's unterminated last line.
    const killed = runDir([line(record(0)), recordToJsonLine(record(1)).slice(0, 40)]);
    expect(read(killed.path).truncatedTail).toBe(true);
    expect(existsSync(join(killed.dir, COLUMNS_FILE))).toBe(false);

    process.env.INFERMETER_COLUMN_FILE = 'off';
    const off = runDir([line(record(0))]);
    read(off.path);
    expect(existsSync(join(off.dir, COLUMNS_FILE))).toBe(false);
    delete process.env.INFERMETER_COLUMN_FILE;
    read(off.path);
    expect(existsSync(join(off.dir, COLUMNS_FILE))).toBe(true);
    // Off also means not read.
    process.env.INFERMETER_COLUMN_FILE = 'off';
    expect(loadColumnsFile(off.path)).toBeNull();
  });

  it('a refusal is the text read’s on both paths: records of another run mixed in are refused with the line', () => {
    const { dir, path } = runDir([line(record(0)), '\n', line(record(1))]);
    read(path);
    expect(loadColumnsFile(path)!.lineOf(1)).toBe(3);
    rmSync(join(dir, COLUMNS_FILE));
    const clash = runDir([line(record(0)), line(record(0, { output_tokens: 1 }))]);
    expect(() => read(clash.path)).toThrow(/records\.jsonl:2: a second, different record/);
    expect(existsSync(join(clash.dir, COLUMNS_FILE))).toBe(false);
  });
});
