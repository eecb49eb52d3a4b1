/**
 * Splits a byte stream into '\n'-terminated lines, whatever the chunk boundaries: a line that
 * spans chunks is carried over as bytes and decoded once it is whole, so a UTF-8 character cut
 * by a chunk boundary decodes correctly. No line is ever joined into one string with others,
 * so a file of any size can be read (Node's strings stop at ~512 MiB).
 */
export class LineSplitter {
  /** Bytes of the line begun in earlier chunks and not yet ended. */
  private carry: Buffer[] = [];
  private carryBytes = 0;
  /** 1-based number of the next line. */
  private lineNo = 1;

  constructor(private readonly onLine: (text: string, lineNo: number) => void) {}

  /** Feeds the next chunk; emits every line it ends. The chunk's bytes may be reused by the caller afterwards. */
  push(chunk: Buffer): void {
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, from);
      if (nl < 0) break;
      let text: string;
      if (this.carryBytes > 0) {
        this.carry.push(chunk.subarray(from, nl));
        text = Buffer.concat(this.carry, this.carryBytes + nl - from).toString('utf8');
        this.carry = [];
        this.carryBytes = 0;
      } else {
        text = chunk.toString('utf8', from, nl);
      }
      this.onLine(text, this.lineNo++);
      from = nl + 1;
    }
    if (from < chunk.length) {
      // Copied: the caller's buffer is refilled by the next read.
      this.carry.push(Buffer.from(chunk.subarray(from)));
      this.carryBytes += chunk.length - from;
    }
  }

  /** The unterminated last line (the file did not end with '\n'), or null; its number is `tailLineNo`. */
  end(): string | null {
    if (this.carryBytes === 0) return null;
    const text = Buffer.concat(this.carry, this.carryBytes).toString('utf8');
    this.carry = [];
    this.carryBytes = 0;
    return text;
  }

  get tailLineNo(): number {
    return this.lineNo;
  }
}
