/**
 * Streams records to records.jsonl as they complete, so a killed run keeps what it
 * measured. Lines are batched and written with one synchronous write per batch: a batch is
 * written when it reaches FLUSH_BYTES, or FLUSH_MS after its first record (a steady trickle
 * cannot postpone it), so a crash loses at most that (docs/records.md §Durability).
 */
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { recordFromJsonLine, recordToJsonLine, recordToJsonLineSharedTimes, RecordParseError } from '../record/jsonl.js';
import type { RequestRecord } from '../record/record.js';
import { UserError } from '../errors/user-error.js';

/** A batch this large is written at once. */
export const FLUSH_BYTES = 64 * 1024;
/** A batch is written at the latest this long after its first record. */
export const FLUSH_MS = 200;

export class RecordsWriter {
  private readonly fd: number;
  private lines: string[] = [];
  private bytes = 0;
  private timer: NodeJS.Timeout | null = null;

  /** `sharedChunkTimes`: records whose chunks share their times (virtual time; see recordToJsonLine). */
  constructor(
    readonly path: string,
    private readonly format: { sharedChunkTimes?: boolean } = {},
  ) {
    this.fd = openSync(path, 'a');
  }

  write(rec: RequestRecord): void {
    this.writeLine(this.format.sharedChunkTimes ? recordToJsonLineSharedTimes(rec) : recordToJsonLine(rec));
  }

  /** One record's line as recordToJsonLine (or a variant giving the same text) made it. */
  writeLine(line: string): void {
    this.lines.push(line);
    this.bytes += line.length + 1;
    if (this.bytes >= FLUSH_BYTES) this.flush();
    else if (!this.timer) this.timer = setTimeout(() => this.flush(), FLUSH_MS);
  }

  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.lines.length === 0) return;
    writeSync(this.fd, `${this.lines.join('\n')}\n`);
    this.lines = [];
    this.bytes = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

/** Reads records.jsonl; a bad line is a UserError naming the file and line. A truncated last line (killed run) is skipped. */
export function readRecordsFile(path: string): { records: RequestRecord[]; truncatedTail: boolean } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UserError(`${path}: cannot read records (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  const lines = text.split('\n');
  const records: RequestRecord[] = [];
  let truncatedTail = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    try {
      records.push(recordFromJsonLine(line));
    } catch (err) {
      const isLast = lines.slice(i + 1).every((l) => l.trim() === '');
      if (isLast && !text.endsWith('\n')) {
        truncatedTail = true;
        continue;
      }
      const msg = err instanceof RecordParseError ? err.message : String(err);
      throw new UserError(`${path}:${i + 1}: ${msg}`);
    }
  }
  return { records, truncatedTail };
}
