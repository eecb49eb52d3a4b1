/**
 * Splits a byte stream into '\n'-terminated lines, whatever the chunk boundaries: a line that
 * spans chunks is carried over as bytes and handed on once it is whole, as bytes (the records
 * reader scans them before decoding any), so a UTF-8 character cut by a chunk boundary decodes
 * correctly. No line is ever joined into one string with others, so a file of any size can be
 * read (Node's strings stop at ~512 MiB).
 */
export class LineSplitter {
  /** Bytes of the line begun in earlier chunks and not yet ended. */
  private carry: Buffer[] = [];
  private carryBytes = 0;
  /** 1-based number of the next line. */
  private lineNo = 1;

  /** `onLine` gets each line's bytes without its '\n', valid only during the call. */
  constructor(private readonly onLine: (line: Buffer, lineNo: number) => void) {}

  /** Feeds the next chunk; emits every line it ends. The chunk's bytes may be reused by the caller afterwards. */
  push(chunk: Buffer): void {
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, from);
      if (nl < 0) break;
      let line: Buffer;
      if (this.carryBytes > 0) {
        this.carry.push(chunk.subarray(from, nl));
        line = Buffer.concat(this.carry, this.carryBytes + nl - from);
        this.carry = [];
        this.carryBytes = 0;
      } else {
        line = chunk.subarray(from, nl);
      }
      this.onLine(line, this.lineNo++);
      from = nl + 1;
    }
    if (from < chunk.length) {
      // Copied: the caller's buffer is refilled by the next read.
      this.carry.push(Buffer.from(chunk.subarray(from)));
      this.carryBytes += chunk.length - from;
    }
  }

  /** The unterminated last line's bytes (the file did not end with '\n'), or null; its number is `tailLineNo`. */
  end(): Buffer | null {
    if (this.carryBytes === 0) return null;
    const line = Buffer.concat(this.carry, this.carryBytes);
    this.carry = [];
    this.carryBytes = 0;
    return line;
  }

  get tailLineNo(): number {
    return this.lineNo;
  }
}
