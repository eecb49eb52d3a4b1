/**
 * Reads records.jsonl as a stream: fixed-size reads split into lines (LineSplitter), each line
 * parsed as it ends, so a run of any size that a run can write can be read back; memory is the
 * records kept, never the file's text.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { recordFromJsonLine, RecordParseError } from '../record/jsonl.js';
import type { RequestRecord } from '../record/record.js';
import { UserError } from '../errors/user-error.js';
import { LineSplitter } from './line-splitter.js';
import { RecordsChecker } from './records-check.js';

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
 * Calls onRecord with every record of the file, in file order, and its line number; a bad line is
 * a UserError naming the file and line. A truncated last line (a killed run: no final newline) is
 * skipped and reported as truncatedTail.
 */
export function forEachRecord(path: string, onRecord: (rec: RequestRecord, lineNo: number) => void, opts: ReadOptions = {}): { count: number; truncatedTail: boolean } {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    throw new UserError(`${path}: cannot read records (${errnoCode(err)})`);
  }
  let count = 0;
  const parse = (text: string, lineNo: number): RequestRecord | null => {
    const line = text.trim();
    if (line === '') return null;
    try {
      return recordFromJsonLine(line);
    } catch (err) {
      throw new UserError(`${path}:${lineNo}: ${err instanceof RecordParseError ? err.message : String(err)}`);
    }
  };
  const splitter = new LineSplitter((text, lineNo) => {
    const rec = parse(text, lineNo);
    if (rec === null) return;
    count++;
    onRecord(rec, lineNo);
  });
  const buf = Buffer.allocUnsafe(opts.chunkBytes ?? READ_BYTES);
  try {
    for (;;) {
      let got: number;
      try {
        got = readSync(fd, buf, 0, buf.length, null);
      } catch (err) {
        throw new UserError(`${path}: cannot read records (${errnoCode(err)})`);
      }
      if (got === 0) break;
      splitter.push(got === buf.length ? buf : buf.subarray(0, got));
    }
  } finally {
    closeSync(fd);
  }
  const tail = splitter.end();
  let truncatedTail = false;
  if (tail !== null && tail.trim() !== '') {
    let rec: RequestRecord | null = null;
    try {
      rec = parse(tail, splitter.tailLineNo);
    } catch {
      truncatedTail = true;
    }
    if (rec !== null) {
      count++;
      onRecord(rec, splitter.tailLineNo);
    }
  }
  return { count, truncatedTail };
}

/**
 * Every record of records.jsonl, in file order (see forEachRecord), checked (records-check.ts):
 * impossible times and records of another run are a UserError; a record written twice is kept
 * once, with a warning through opts.warn.
 */
export function readRecordsFile(path: string, opts: ReadOptions = {}): { records: RequestRecord[]; truncatedTail: boolean } {
  const records: RequestRecord[] = [];
  const checker = new RecordsChecker(path);
  const { truncatedTail } = forEachRecord(
    path,
    (rec, lineNo) => {
      checker.add(rec, lineNo);
      records.push(rec);
    },
    opts,
  );
  const checked = checker.finish(records);
  for (const line of checked.warnings) opts.warn?.(line);
  return { records: checked.records, truncatedTail };
}
