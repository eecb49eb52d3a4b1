/**
 * Reads records.jsonl as a stream: fixed-size reads split into lines (LineSplitter), each line
 * parsed as it ends, so a run of any size that a run can write can be read back; memory is the
 * records kept, never the file's text. readRecordColumns keeps them in typed columns
 * (record/record-columns.ts), their chunk times read from the line's bytes (record/jsonl-chunks.ts).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { recordFromJsonLine, recordFromObject, RecordParseError } from '../record/jsonl.js';
import { MicrosBuffer, scanChunkMicros, type ChunkScan } from '../record/jsonl-chunks.js';
import { newScannedRecord, scanRecordLine } from '../record/jsonl-line-scan.js';
import { RecordColumns } from '../record/record-columns.js';
import type { RequestRecord } from '../record/record.js';
import { UserError } from '../errors/user-error.js';
import { LineSplitter } from './line-splitter.js';
import { RecordsChecker } from './records-check.js';
import { loadColumnsFile, saveColumnsFile, sourceIdentity } from './records-columns-file.js';

/** Bytes per read: large enough that the read calls cost nothing beside the parsing. */
const READ_BYTES = 1 << 20;

export interface ReadOptions {
  /** Bytes per read (tests use small ones to cut lines everywhere). */
  chunkBytes?: number;
  /** Where a repair's warning line goes (records-check.ts); the caller prints it. */
  warn?: (line: string) => void;
}

const errnoCode = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? String(err);

/**
 * Reads the file's lines as bytes (LineSplitter) and gives each to onLine; the unterminated last
 * line, if any, is returned. `what` names the file's content in a read error ("records").
 */
export function forEachLine(path: string, onLine: (line: Buffer, lineNo: number) => void, opts: Pick<ReadOptions, 'chunkBytes'>, what = 'records'): { tail: string | null; tailLineNo: number } {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    throw new UserError(`${path}: cannot read ${what} (${errnoCode(err)})`);
  }
  const splitter = new LineSplitter(onLine);
  const buf = Buffer.allocUnsafe(opts.chunkBytes ?? READ_BYTES);
  try {
    for (;;) {
      let got: number;
      try {
        got = readSync(fd, buf, 0, buf.length, null);
      } catch (err) {
        throw new UserError(`${path}: cannot read ${what} (${errnoCode(err)})`);
      }
      if (got === 0) break;
      splitter.push(got === buf.length ? buf : buf.subarray(0, got));
    }
  } finally {
    closeSync(fd);
  }
  return { tail: splitter.end()?.toString('utf8') ?? null, tailLineNo: splitter.tailLineNo };
}

/** One line's record (null for a blank line); a bad line is a UserError naming the file and line. */
function parseLine(path: string, text: string, lineNo: number): RequestRecord | null {
  const line = text.trim();
  if (line === '') return null;
  try {
    return recordFromJsonLine(line);
  } catch (err) {
    throw new UserError(`${path}:${lineNo}: ${err instanceof RecordParseError ? err.message : String(err)}`);
  }
}

/**
 * Every line's record through `add`, the unterminated last line's too when it parses (else it is
 * skipped as the truncated tail of a killed run).
 */
function readLines(path: string, add: (line: Buffer | string, lineNo: number) => void, opts: ReadOptions): { truncatedTail: boolean } {
  const { tail, tailLineNo } = forEachLine(path, add, opts);
  if (tail === null || tail.trim() === '') return { truncatedTail: false };
  try {
    recordFromJsonLine(tail.trim());
  } catch {
    return { truncatedTail: true };
  }
  add(tail, tailLineNo);
  return { truncatedTail: false };
}

/**
 * Calls onRecord with every record of the file, in file order, and its line number; a bad line is
 * a UserError naming the file and line. A truncated last line (a killed run: no final newline) is
 * skipped and reported as truncatedTail. Each record is a plain object.
 */
export function forEachRecord(path: string, onRecord: (rec: RequestRecord, lineNo: number) => void, opts: ReadOptions = {}): { count: number; truncatedTail: boolean } {
  let count = 0;
  const { truncatedTail } = readLines(
    path,
    (line, lineNo) => {
      const rec = parseLine(path, typeof line === 'string' ? line : line.toString('utf8'), lineNo);
      if (rec === null) return;
      count++;
      onRecord(rec, lineNo);
    },
    opts,
  );
  return { count, truncatedTail };
}

const OPEN_BRACE = 0x7b;
const NO_CHUNKS = new Float64Array(0);

/**
 * The record of a line whose chunk_ms the scan read (as µs): the rest of the line through
 * JSON.parse with the array taken out. Null when that is not a plain record line (a second
 * chunk_ms key, a field the record refuses): the caller parses the line whole, which gives the
 * line's error if it has one.
 */
function recordAroundChunks(line: Buffer, scan: ChunkScan): RequestRecord | null {
  let o: unknown;
  try {
    o = JSON.parse(`${line.toString('utf8', 0, scan.open)}0${line.toString('utf8', scan.close + 1)}`);
  } catch {
    return null;
  }
  if (typeof o !== 'object' || o === null || (o as { chunk_ms?: unknown }).chunk_ms !== 0) return null;
  try {
    return recordFromObject(o as Record<string, unknown>, NO_CHUNKS);
  } catch {
    return null;
  }
}

/**
 * One line's record, the one parser of a records.jsonl line (readChecked here, records-by-id.ts):
 * null for a blank line; a bad line is a UserError naming the file and line. When `count` is not
 * -1, the line's chunk times were scanned as µs into `micros` (the first `count`) and rec.chunk_ms
 * is empty: the caller keeps them its way (chunkTimesMs for plain records).
 */
export function parseRecordLine(path: string, line: Buffer | string, lineNo: number, micros: MicrosBuffer): { rec: RequestRecord; count: number } | null {
  const scan = typeof line !== 'string' && line[0] === OPEN_BRACE ? scanChunkMicros(line, micros) : null;
  const fast = scan === null ? null : recordAroundChunks(line as Buffer, scan);
  if (fast !== null) return { rec: fast, count: scan!.count };
  const rec = parseLine(path, typeof line === 'string' ? line : line.toString('utf8'), lineNo);
  return rec === null ? null : { rec, count: -1 };
}

/** Scanned chunk times (the first `count` µs of `micros`) as ms: the double JSON.parse gives for their text. */
export function chunkTimesMs(micros: Float64Array, count: number): Float64Array {
  const chunks = new Float64Array(count);
  for (let k = 0; k < count; k++) chunks[k] = micros[k]! / 1000;
  return chunks;
}

/**
 * The file's records, checked (records-check.ts), each kept by `keep` from its parsed fields and,
 * when the line's chunk times were scanned as µs, those (the first `count` of `micros`).
 * `checker` holds each record's line number afterwards.
 */
function readChecked(
  path: string,
  opts: ReadOptions,
  keep: (rec: RequestRecord, micros: Float64Array | null, count: number, scannedLine: boolean) => RequestRecord,
  scanned?: RequestRecord,
  checker = new RecordsChecker(path),
): { records: RequestRecord[]; truncatedTail: boolean } {
  const records: RequestRecord[] = [];
  const micros = new MicrosBuffer();
  const { truncatedTail } = readLines(
    path,
    (line, lineNo) => {
      // The reusable record of a line in our writer's shape (jsonl-line-scan.ts), when the keeper copies it.
      const count = scanned !== undefined && typeof line !== 'string' ? scanRecordLine(line, micros, scanned) : -1;
      let rec: RequestRecord;
      if (count >= 0) rec = keep(scanned!, micros.values, count, true);
      else {
        const parsed = parseRecordLine(path, line, lineNo, micros);
        if (parsed === null) return;
        rec = parsed.count < 0 ? keep(parsed.rec, null, 0, false) : keep(parsed.rec, micros.values, parsed.count, false);
      }
      checker.add(rec, lineNo);
      records.push(rec);
    },
    opts,
  );
  return finishChecked(checker, records, truncatedTail, opts);
}

function finishChecked(checker: RecordsChecker, records: RequestRecord[], truncatedTail: boolean, opts: ReadOptions): { records: RequestRecord[]; truncatedTail: boolean } {
  const checked = checker.finish(records);
  for (const line of checked.warnings) opts.warn?.(line);
  return { records: checked.records, truncatedTail };
}

/**
 * records.jsonl into typed columns (record/record-columns.ts), checked as readRecordsFile's
 * records are; `records` are read-only views of the columns with the RequestRecord shape, in
 * file order, repeats dropped. What analyze, report, export and compare read: ~60 bytes a record
 * and under 2 a chunk time instead of objects. A finished run's columns are kept in records.cols
 * (records-columns-file.ts) and loaded from there while records.jsonl is unchanged; the records
 * are checked again either way, so both paths give the same records, warnings and refusals.
 */
export function readRecordColumns(path: string, opts: ReadOptions = {}): { columns: RecordColumns; records: RequestRecord[]; truncatedTail: boolean } {
  const kept = loadColumnsFile(path);
  if (kept !== null) {
    const checker = new RecordsChecker(path);
    const records = kept.columns.records();
    for (let i = 0; i < records.length; i++) checker.add(records[i]!, kept.lineOf(i));
    return { columns: kept.columns, ...finishChecked(checker, records, kept.truncatedTail, opts) };
  }
  const source = sourceIdentity(path);
  const columns = new RecordColumns();
  const checker = new RecordsChecker(path);
  const read = readChecked(path, opts, (rec, micros, count, scannedLine) => {
    if (scannedLine) columns.addScanned(rec, micros!, count);
    else if (micros) columns.add(rec, micros, count);
    else columns.add(rec);
    return columns.view(columns.length - 1);
  }, newScannedRecord(), checker);
  columns.shareChunkTimeline();
  saveColumnsFile(path, source, { columns, lineOf: (i) => checker.lineOf(i), truncatedTail: read.truncatedTail });
  return { columns, ...read };
}

/**
 * Every record of records.jsonl as a plain object, in file order (see forEachRecord), checked
 * (records-check.ts): impossible times and records of another run are a UserError; a record
 * written twice is kept once, with a warning through opts.warn.
 */
export function readRecordsFile(path: string, opts: ReadOptions = {}): { records: RequestRecord[]; truncatedTail: boolean } {
  return readChecked(path, opts, (rec, micros, count) => {
    if (micros) rec.chunk_ms = chunkTimesMs(micros, count);
    return rec;
  });
}
