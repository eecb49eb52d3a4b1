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

/**
 * Start line of every element of the top-level JSON array in `text` (a scan that tracks strings
 * and nesting depth; assumes `text` parsed as an array).
 */
export function arrayElementLines(text: string): number[] {
  const lines: number[] = [];
  let depth = 0;
  let inString = false;
  let line = 1;
  let expectElement = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\n') line++;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') continue;
    if (depth === 1 && expectElement && c !== ']') {
      lines.push(line);
      expectElement = false;
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      depth++;
      if (depth === 1) expectElement = true;
    } else if (c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 1) expectElement = true;
  }
  return lines;
}
