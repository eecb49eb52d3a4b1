/**
 * A records.jsonl line's chunk_ms array read straight from its bytes as whole µs (issue 31).
 * chunk_ms is most of a line (128 times of ~8 characters in a default record); JSON.parse would
 * box every one as a heap number, then the reader copies them out. records.jsonl writes times
 * with at most three decimals (jsonl.ts), so a time's digits are an integer k of µs, and k / 1000
 * is the double JSON.parse gives for the text: both are the correctly rounded value of the same
 * rational. Anything else (an exponent, a sign, a fourth decimal, whitespace, more than 12 integer
 * digits) is left to JSON.parse: the scan says null and the caller parses the line whole.
 */

const KEY = Buffer.from('"chunk_ms":[');
const DIGIT_0 = 0x30;
const DOT = 0x2e;
const COMMA = 0x2c;
const CLOSE = 0x5d;
const SCALE = [1000, 100, 10, 1];

/** Where the array lies in the line: line[open] is '[', line[close] is ']'. */
export interface ChunkScan {
  open: number;
  close: number;
  count: number;
}

/** Growable µs buffer the scan fills; `values` is replaced when a line needs more room. */
export class MicrosBuffer {
  values = new Float64Array(1024);
  /** Where the last scanned array's ']' is. */
  close = 0;
  grow(): void {
    const v = new Float64Array(this.values.length * 2);
    v.set(this.values);
    this.values = v;
  }
}

/** Scans the first `"chunk_ms":[…]` of `line` into `into.values` as µs; null when it is not plain whole-µs numbers. */
export function scanChunkMicros(line: Buffer, into: MicrosBuffer): ChunkScan | null {
  const key = line.indexOf(KEY);
  if (key < 0) return null;
  const open = key + KEY.length - 1;
  const count = scanChunksAt(line, open, into);
  return count < 0 ? null : { open, close: into.close, count };
}

/**
 * Scans the array whose '[' is line[open] into `into.values` as µs (into.close: its ']'); the
 * count, or −1 when it is not plain whole-µs numbers.
 */
export function scanChunksAt(line: Buffer, open: number, into: MicrosBuffer): number {
  const end = line.length;
  let i = open + 1;
  let count = 0;
  let v = into.values;
  if (i < end && line[i] === CLOSE) {
    into.close = i;
    return 0;
  }
  for (;;) {
    // One number: 0 | [1-9][0-9]{0,11}, then optionally '.' and 1–3 digits; its digits are k.
    const from = i;
    let k = 0;
    let d: number;
    // (d >>> 0) <= 9: a digit, one comparison.
    while (i < end && (d = line[i]! - DIGIT_0) >>> 0 <= 9) {
      k = k * 10 + d;
      i++;
    }
    const digits = i - from;
    if (digits === 0 || digits > 12 || (digits > 1 && line[from] === DIGIT_0)) return -1;
    let c = line[i];
    if (c === DOT) {
      const dot = ++i;
      while (i < end && (d = line[i]! - DIGIT_0) >>> 0 <= 9) {
        k = k * 10 + d;
        i++;
      }
      const decimals = i - dot;
      if (decimals === 0 || decimals > 3) return -1;
      k *= SCALE[decimals]!;
      c = line[i];
    } else k *= 1000;
    if (count === v.length) {
      into.grow();
      v = into.values;
    }
    v[count++] = k;
    if (c === COMMA) i++;
    else if (c === CLOSE) break;
    else return -1;
  }
  into.close = i;
  return count;
}
