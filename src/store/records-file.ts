/**
 * Streams records to records.jsonl as they complete, so a killed run keeps what it
 * measured. Lines are batched and written with one synchronous write per batch: a batch is
 * written when it reaches FLUSH_BYTES, or FLUSH_MS after its first record (a steady trickle
 * cannot postpone it), so a crash loses at most that (docs/records.md §Durability).
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { recordToJsonLine } from '../record/jsonl.js';
import type { RequestRecord } from '../record/record.js';

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

  constructor(readonly path: string) {
    this.fd = openSync(path, 'a');
  }

  write(rec: RequestRecord): void {
    this.writeLine(recordToJsonLine(rec));
  }

  /** One record's line as recordToJsonLine made it. */
  writeLine(line: string): void {
    this.room(3 * line.length + 1);
    this.used += this.buf.write(line, this.used);
    this.endLine();
  }

  /**
   * One record's line given as recordToJsonLineParts' head and tail around its chunk times'
   * ASCII text (without brackets), copied as bytes: virtual time's lines are mostly chunk times.
   */
  writeLineParts(head: string, chunkText: Uint8Array, tail: string): void {
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
    for (let at = 0; at < this.used; ) at += writeSync(this.fd, this.buf, at, this.used - at);
    this.used = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }

  /** Makes room for `bytes` more (at most; UTF-8 takes up to 3 bytes per UTF-16 unit). */
  private room(bytes: number): void {
    if (this.used + bytes <= this.buf.length) return;
    this.flush();
    if (bytes > this.buf.length) this.buf = Buffer.allocUnsafe(bytes);
  }

  private endLine(): void {
    this.buf[this.used++] = 0x0a;
    if (this.used >= FLUSH_BYTES) this.flush();
    else if (!this.timer) this.timer = setTimeout(() => this.flush(), FLUSH_MS);
  }
}

export { readRecordsFile, forEachRecord } from './records-reader.js';
