/**
 * records.jsonl read in id order, a batch at a time, without holding the run (the exports, issue
 * 31). Two passes over the file:
 *
 *   1. `indexRecordsById` streams every line once (forEachLine), parses and checks it as every
 *      reader does (records-check.ts: impossible times, another run's records, repeats dropped),
 *      and keeps per record only its id, the byte offset and length of its line: 20 bytes a
 *      record. The kept lines are put in id order (stable: equal ids in file order), which is the
 *      exports' row order.
 *   2. `recordBatchesById` reads those lines back a batch at a time, in id order: a batch's lines
 *      are read in file order, neighbouring ones in one read (records are written as they end, so
 *      a batch of ids is mostly one stretch of the file), and parsed again into plain records.
 *
 * Memory is the index and one batch, whatever the run's length; the cost is a second parse.
 * A record read back has the values readRecordColumns' views give (chunk times as their µs over
 * 1000, the double JSON.parse gives for the text).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { UserError } from '../errors/user-error.js';
import { recordFromJsonLine } from '../record/jsonl.js';
import { MicrosBuffer } from '../record/jsonl-chunks.js';
import type { RequestRecord } from '../record/record.js';
import { argsortFloat64 } from '../util/argsort.js';
import { chunkTimesMs, forEachLine, parseRecordLine, type ReadOptions } from './records-reader.js';
import { RecordsChecker } from './records-check.js';

/** The kept records of a records.jsonl, in id order: where each one's line is. */
export interface RecordsById {
  path: string;
  /** Records kept (repeats dropped). */
  count: number;
  /** Byte offset of each kept record's line, in id order. */
  offsets: Float64Array;
  /** Byte length of each kept record's line (without its '\n'), in id order. */
  lengths: Int32Array;
}

/**
 * Records per batch of recordBatchesById: a batch's records and what is made of them die young
 * (at 1,000 the CSV export of a 100k run peaked at 213 MiB, at 250 at 158 MiB).
 */
export const ID_BATCH = 250;
/** Lines closer than this are read in one read. */
const GAP_BYTES = 64 * 1024;
/** A read spans at most this many bytes (a longer line is read alone). */
const SPAN_BYTES = 4 * 1024 * 1024;

const errnoCode = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? String(err);

/** Grows by doubling; `view()` the values added. */
class Growing<A extends Float64Array | Int32Array> {
  private a: A;
  n = 0;
  constructor(private readonly make: (n: number) => A) {
    this.a = make(1024);
  }
  push(v: number): void {
    if (this.n === this.a.length) {
      const b = this.make(this.n * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
  view(): A {
    return this.a.subarray(0, this.n) as A;
  }
}

/** One line's record as a plain object (the reader's one line parser); null for a blank line. */
function parsePlainLine(path: string, line: Buffer, lineNo: number, micros: MicrosBuffer): RequestRecord | null {
  const parsed = parseRecordLine(path, line, lineNo, micros);
  if (parsed === null) return null;
  if (parsed.count >= 0) parsed.rec.chunk_ms = chunkTimesMs(micros.values, parsed.count);
  return parsed.rec;
}

/**
 * Pass 1: every record of `path` parsed and checked (records-check.ts; a repair's warning through
 * opts.warn), and where each kept one's line is, in id order. A truncated last line (a killed
 * run) is skipped, as readRecordColumns skips it. @throws UserError as readRecordColumns.
 */
export function indexRecordsById(path: string, opts: ReadOptions = {}): RecordsById {
  const checker = new RecordsChecker(path);
  const micros = new MicrosBuffer();
  const ids = new Growing((n) => new Float64Array(n));
  const offsets = new Growing((n) => new Float64Array(n));
  const lengths = new Growing((n) => new Int32Array(n));
  let pos = 0;
  const add = (line: Buffer, lineNo: number, at: number): void => {
    const rec = parsePlainLine(path, line, lineNo, micros);
    if (rec === null) return;
    checker.add(rec, lineNo);
    ids.push(rec.id);
    offsets.push(at);
    lengths.push(line.length);
  };
  const { tail, tailLineNo } = forEachLine(
    path,
    (line, lineNo) => {
      const at = pos;
      pos += line.length + 1;
      add(line, lineNo, at);
    },
    opts,
  );
  if (tail !== null && tail.trim() !== '') {
    let whole = true;
    try {
      recordFromJsonLine(tail.trim());
    } catch {
      whole = false;
    }
    if (whole) add(Buffer.from(tail, 'utf8'), tailLineNo, pos);
  }
  const at = { offsets: offsets.view(), lengths: lengths.view() };
  const repeats = checker.repeats((i) => readLines(path, [i], at)[0]!);
  let keptIds = ids.view();
  let keptOffsets = at.offsets;
  let keptLengths = at.lengths;
  if (repeats !== null) {
    for (const line of repeats.warnings) opts.warn?.(line);
    const keep = (_: number, i: number): boolean => repeats.drop[i] === 0;
    keptIds = keptIds.filter(keep);
    keptOffsets = keptOffsets.filter(keep);
    keptLengths = keptLengths.filter(keep);
  }
  // In id order, equal ids in file order: the order the exports write.
  const order = argsortFloat64(keptIds);
  const byIdOffsets = new Float64Array(order.length);
  const byIdLengths = new Int32Array(order.length);
  for (let k = 0; k < order.length; k++) {
    byIdOffsets[k] = keptOffsets[order[k]!]!;
    byIdLengths[k] = keptLengths[order[k]!]!;
  }
  return { path, count: order.length, offsets: byIdOffsets, lengths: byIdLengths };
}

/** The records of lines `which` (indices into at.offsets/at.lengths), in the order given. */
function readLines(path: string, which: ArrayLike<number>, at: { offsets: Float64Array; lengths: Int32Array }, fd?: number, scratch: { buf: Buffer } = { buf: Buffer.alloc(0) }): RequestRecord[] {
  const own = fd === undefined;
  let f: number;
  try {
    f = fd ?? openSync(path, 'r');
  } catch (err) {
    throw new UserError(`${path}: cannot read records (${errnoCode(err)})`);
  }
  try {
    const out = new Array<RequestRecord>(which.length);
    // Lines in file order, neighbours read together.
    const byOffset = Array.from(which, (line, k) => k).sort((a, b) => at.offsets[which[a]!]! - at.offsets[which[b]!]!);
    const micros = new MicrosBuffer();
    let k = 0;
    while (k < byOffset.length) {
      const start = at.offsets[which[byOffset[k]!]!]!;
      let end = start + at.lengths[which[byOffset[k]!]!]!;
      let j = k + 1;
      while (j < byOffset.length) {
        const next = which[byOffset[j]!]!;
        const nextEnd = at.offsets[next]! + at.lengths[next]!;
        if (at.offsets[next]! - end > GAP_BYTES || nextEnd - start > SPAN_BYTES) break;
        end = Math.max(end, nextEnd);
        j++;
      }
      // One buffer for every read of the pass (its lines are parsed before the next read).
      if (scratch.buf.length < end - start) scratch.buf = Buffer.allocUnsafe(Math.max(end - start, 2 * scratch.buf.length));
      const buf = scratch.buf.subarray(0, end - start);
      let got = 0;
      while (got < buf.length) {
        let n: number;
        try {
          n = readSync(f, buf, got, buf.length - got, start + got);
        } catch (err) {
          throw new UserError(`${path}: cannot read records (${errnoCode(err)})`);
        }
        if (n === 0) throw new UserError(`${path}: the file changed while it was read (it is shorter than its first reading)`);
        got += n;
      }
      for (; k < j; k++) {
        const line = which[byOffset[k]!]!;
        const from = at.offsets[line]! - start;
        const rec = parsePlainLine(path, buf.subarray(from, from + at.lengths[line]!), 0, micros);
        if (rec === null) throw new UserError(`${path}: the file changed while it was read (a record's line is now blank)`);
        out[byOffset[k]!] = rec;
      }
    }
    return out;
  } finally {
    if (own) closeSync(f);
  }
}

/**
 * Pass 2: the indexed records as plain records, in id order, `batch` at a time. Each array is the
 * caller's (a new one per batch). An empty run gives no batch.
 */
export function* recordBatchesById(index: RecordsById, batch = ID_BATCH): Generator<RequestRecord[]> {
  if (index.count === 0) return;
  let fd: number;
  try {
    fd = openSync(index.path, 'r');
  } catch (err) {
    throw new UserError(`${index.path}: cannot read records (${errnoCode(err)})`);
  }
  try {
    const which = new Int32Array(batch);
    const scratch = { buf: Buffer.alloc(0) };
    for (let i = 0; i < index.count; i += batch) {
      const n = Math.min(batch, index.count - i);
      for (let k = 0; k < n; k++) which[k] = i + k;
      yield readLines(index.path, which.subarray(0, n), index, fd, scratch);
    }
  } finally {
    closeSync(fd);
  }
}
