/**
 * Locating JSON errors and array elements by line, so dataset problems name `file:line`.
 */

/** 1-based line of character offset `pos` in `text`. */
export function lineAt(text: string, pos: number): number {
  let line = 1;
  for (let i = 0; i < pos && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** Line of a JSON.parse error (Node's message carries `position N` or `line N`). */
export function jsonErrorLine(text: string, err: unknown): number | null {
  const msg = (err as Error).message ?? '';
  const line = /line (\d+)/.exec(msg);
  if (line) return Number(line[1]);
  const pos = /position (\d+)/.exec(msg);
  return pos ? lineAt(text, Number(pos[1])) : null;
}

import { MAX_LINE_BYTES } from './read-bounded.js';

export interface TextPiece {
  text: string;
  /** 1-based line where the piece starts. */
  line: number;
}

/** Lines of a UTF-8 buffer, decoded one at a time (files larger than a JS string can hold work). */
export function* bufferLines(buf: Buffer, maxLineBytes = MAX_LINE_BYTES): Generator<TextPiece> {
  let start = 0;
  let line = 1;
  while (start < buf.length) {
    let end = buf.indexOf(10, start);
    if (end < 0) end = buf.length;
    if (end - start > maxLineBytes) throw new JsonShapeError(`a line longer than ${Math.round(maxLineBytes / 1024 ** 2)} MiB (is this a JSON Lines file?)`, line);
    const stop = end > start && buf[end - 1] === 13 ? end - 1 : end;
    yield { text: buf.toString('utf8', start, stop), line };
    start = end + 1;
    line++;
  }
}

/**
 * The elements of a top-level JSON array in a UTF-8 buffer, each as its own text with its start
 * line, so a huge file (ShareGPT is ~650 MB) is never one string and a bad element can be skipped
 * alone. Throws `JsonShapeError` when the buffer is not an array or ends inside one.
 */
export function* jsonArrayElements(buf: Buffer): Generator<TextPiece> {
  let i = 0;
  let line = 1;
  const skipWs = (): void => {
    for (; i < buf.length; i++) {
      const c = buf[i];
      if (c === 10) line++;
      else if (c !== 32 && c !== 9 && c !== 13) return;
    }
  };
  if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) i = 3; // BOM
  skipWs();
  if (buf[i] !== 0x5b) throw new JsonShapeError('expected a JSON array', line);
  i++;
  for (;;) {
    skipWs();
    if (i >= buf.length) throw new JsonShapeError('unexpected end of file inside the array', line);
    if (buf[i] === 0x5d) return;
    const start = i;
    const startLine = line;
    let depth = 0;
    let inString = false;
    for (; i < buf.length; i++) {
      const c = buf[i];
      if (c === 10) line++;
      if (inString) {
        if (c === 0x5c) i++;
        else if (c === 0x22) inString = false;
      } else if (c === 0x22) inString = true;
      else if (c === 0x7b || c === 0x5b) depth++;
      else if (c === 0x7d || c === 0x5d) {
        if (depth === 0) break; // the array's own `]`
        depth--;
      } else if (c === 0x2c && depth === 0) break;
    }
    if (i >= buf.length) throw new JsonShapeError('unexpected end of file inside the array', line);
    yield { text: buf.toString('utf8', start, i).trimEnd(), line: startLine };
    if (buf[i] === 0x2c) i++;
  }
}

export class JsonShapeError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}
