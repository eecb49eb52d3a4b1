/**
 * Streams records to records.jsonl as they complete, so a killed run keeps what it
 * measured. Lines are batched and written with one synchronous write per batch: a batch is
 * written when it reaches FLUSH_BYTES, or FLUSH_MS after its first record (a steady trickle
 * cannot postpone it), so a crash loses at most that (docs/records.md §Durability).
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { recordToJsonLine } from '../record/jsonl.js';
import type { RequestRecord } from '../record/record.js';

/**
 * Write errors that mean the disk, not the program, failed: the folder's file system is full, over
 * quota, read-only or broken. The writer then stops writing and says so (`fault`); the run goes
 * on measuring in memory (docs/records.md §Durability).
 */
export const DISK_FAULT_CODES: ReadonlySet<string> = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EIO', 'EFBIG']);

export interface DiskFault {
  /** The errno code (ENOSPC, EROFS, …). */
  code: string;
  path: string;
  /** Records whose lines are in the file (whole lines; a cut last line is not counted). */
  linesWritten: number;
  /** Records given to the writer after the fault, or in the batch it cut: not in the file. */
  linesLost: number;
}

/** A batch this large is written at once. */
export const FLUSH_BYTES = 64 * 1024;
/** A batch is written at the latest this long after its first record. */
export const FLUSH_MS = 200;

export class RecordsWriter {
  private readonly fd: number;
  /** The batch: bytes 0 … used−1 of `buf`. */
  private buf = Buffer.allocUnsafe(2 * FLUSH_BYTES);
  private used = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Lines in the batch, and lines already in the file. */
  private pending = 0;
  private written = 0;
  private diskFault: DiskFault | null = null;

  /**
   * `opts.survive`: a disk fault stops the writing and is reported in `fault` (the caller tells
   * the user and exits DISK_FAULT); without it the fault is thrown, as any other write error.
   */
  constructor(
    readonly path: string,
    private readonly opts: { survive?: boolean } = {},
  ) {
    this.fd = openSync(path, 'a');
  }

  /** Set once a write failed for a disk reason: nothing more is written. */
  get fault(): DiskFault | null {
    return this.diskFault;
  }

  write(rec: RequestRecord): void {
    if (this.diskFault) {
      this.diskFault.linesLost++;
      return;
    }
    this.writeLine(recordToJsonLine(rec));
  }

  /** One record's line as recordToJsonLine made it. */
  writeLine(line: string): void {
    if (this.diskFault) {
      this.diskFault.linesLost++;
      return;
    }
    this.room(3 * line.length + 1);
    this.used += this.buf.write(line, this.used);
    this.endLine();
  }

  /**
   * One record's line given as recordToJsonLineParts' head and tail around its chunk times'
   * ASCII text (without brackets), copied as bytes: virtual time's lines are mostly chunk times.
   */
  writeLineParts(head: string, chunkText: Uint8Array, tail: string): void {
    if (this.diskFault) {
      this.diskFault.linesLost++;
      return;
    }
    this.room(3 * (head.length + tail.length) + chunkText.length + 3);
    this.used += this.buf.write(head, this.used);
    this.buf[this.used++] = 0x5b; // [
    this.buf.set(chunkText, this.used);
    this.used += chunkText.length;
    this.buf[this.used++] = 0x5d; // ]
    this.used += this.buf.write(tail, this.used);
    this.endLine();
  }

  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    try {
      for (let at = 0; at < this.used; ) at += writeSync(this.fd, this.buf, at, this.used - at);
      this.written += this.pending;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === undefined || !DISK_FAULT_CODES.has(code) || this.opts.survive !== true) throw err;
      this.diskFault = { code, path: this.path, linesWritten: this.written, linesLost: this.pending };
    }
    this.used = 0;
    this.pending = 0;
  }

  close(): void {
    this.flush();
    try {
      closeSync(this.fd);
    } catch (err) {
      // A full disk can fail the close too (NFS writes back on close): the fault is already told.
      const code = (err as NodeJS.ErrnoException).code;
      if (code === undefined || !DISK_FAULT_CODES.has(code) || this.opts.survive !== true) throw err;
      this.diskFault ??= { code, path: this.path, linesWritten: this.written, linesLost: 0 };
    }
  }

  /** Makes room for `bytes` more (at most; UTF-8 takes up to 3 bytes per UTF-16 unit). */
  private room(bytes: number): void {
    if (this.used + bytes <= this.buf.length) return;
    this.flush();
    if (bytes > this.buf.length) this.buf = Buffer.allocUnsafe(bytes);
  }

  private endLine(): void {
    this.buf[this.used++] = 0x0a;
    this.pending++;
    if (this.used >= FLUSH_BYTES) this.flush();
    else if (!this.timer) this.timer = setTimeout(() => this.flush(), FLUSH_MS);
  }
}

/**
 * The one line a disk fault is reported with: the folder, what was kept where, what was not
 * written. `records`: all the run gave the writer (default: the fault's own count of them);
 * `resultFile`: the run's summary file (sweep.json for a sweep).
 */
export function diskFaultLine(f: DiskFault, runDir: string, records: number = f.linesWritten + f.linesLost, resultFile = 'result.json'): string {
  const inMemory = records - f.linesWritten;
  return (
    `disk fault: ${f.code} writing ${f.path}: at least ${f.linesWritten} of ${records} records were saved there; the other ${inMemory} were kept in memory only, and the figures printed include them; ` +
    `${resultFile} and the report were not written to ${runDir} (free space there, or give another --result-dir)`
  );
}

/** Errno codes that mean a folder cannot take a run's small files (full, read-only, no permission): a disk fault, not a bug. */
const FILE_FAULT_CODES: ReadonlySet<string> = new Set([...DISK_FAULT_CODES, 'EACCES', 'EPERM']);

/** The errno code when `err` is a disk fault writing a run's spec.json or result.json, else null (rethrow it). */
export function fileFaultCode(err: unknown): string | null {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && FILE_FAULT_CODES.has(code) ? code : null;
}

/** spec.json could not be written before the load: nothing is saved in `runDir`, the run goes on in memory. */
export function specFaultLine(code: string, runDir: string, records: number): string {
  return `disk fault: ${code} writing ${join(runDir, 'spec.json')}: nothing was saved in ${runDir}; the ${records} records were kept in memory only, and the figures printed include them (free space there, or give another --result-dir)`;
}

/**
 * result.json (a sweep's sweep.json: `file`, `what` = 'sweep') could not be written at the end:
 * the records and spec.json are on disk, the figures on stdout.
 */
export function resultFaultLine(code: string, runDir: string, records: number, file = 'result.json', what: 'run' | 'sweep' = 'run'): string {
  return `disk fault: ${code} writing ${join(runDir, file)}: records.jsonl (${records} records) and spec.json were saved in ${runDir}; ${file} and the report were not written there, and the figures printed are the ${what}'s (free space there, or give another --result-dir)`;
}

/**
 * Closes a run's records writer (opened with `survive`) and says whether the disk failed under
 * it: the line to tell the user (the caller then writes nothing more into `runDir` and exits
 * DISK_FAULT), or null. The one sequence run, sim run, sweeps and the coordinator share.
 */
export function closeRecords(writer: RecordsWriter | null, runDir: string | null, o: { records?: number; resultFile?: string } = {}): string | null {
  if (!writer) return null;
  writer.close();
  const f = writer.fault;
  return f && runDir ? diskFaultLine(f, runDir, o.records, o.resultFile) : null;
}

export { readRecordsFile, forEachRecord } from './records-reader.js';
