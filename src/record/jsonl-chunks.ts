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
  let i = open + 1;
  const end = line.length;
  let count = 0;
  if (i < end && line[i] === CLOSE) return { open, close: i, count: 0 };
  for (;;) {
    // One number: 0 | [1-9][0-9]{0,11}, then optionally '.' and 1–3 digits.
    let c = line[i];
    if (c === undefined || c < DIGIT_0 || c > DIGIT_0 + 9) return null;
    let k = c - DIGIT_0;
    let digits = 1;
    i++;
    if (k !== 0) {
      while (i < end && (c = line[i]!) >= DIGIT_0 && c <= DIGIT_0 + 9) {
        if (++digits > 12) return null;
        k = k * 10 + (c - DIGIT_0);
        i++;
      }
    }
    let decimals = 0;
    if (i < end && line[i] === DOT) {
      i++;
      while (i < end && (c = line[i]!) >= DIGIT_0 && c <= DIGIT_0 + 9) {
        if (++decimals > 3) return null;
        k = k * 10 + (c - DIGIT_0);
        i++;
      }
      if (decimals === 0) return null;
    }
    if (count === into.values.length) into.grow();
    into.values[count++] = k * SCALE[decimals]!;
    c = line[i];
    if (c === COMMA) {
      i++;
      continue;
    }
    if (c === CLOSE) return { open, close: i, count };
    return null;
  }
}
