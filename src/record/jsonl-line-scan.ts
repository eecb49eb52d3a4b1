/**
 * A records.jsonl line read straight from its bytes into a reusable record (issue 31): no
 * JSON.parse, no object per line. It recognises only the line our writer writes for a plain
 * record (jsonl.ts recordToJsonLine), exactly:
 *
 *   - the keys of LINE_KEYS, in that order, each once, no whitespace, nothing after output_text;
 *   - each value of the kind its field takes (KINDS): a number, null where the field may be
 *     null, a string without backslash or control character (decoded as the UTF-8 slice of its
 *     bytes: with no escape, that is JSON's decoding of it); error_message and output_text null;
 *   - numbers -?(0|[1-9][0-9]{0,14}) with d ≤ 3 decimals and no exponent: the digits are an
 *     integer k, accumulated exactly while k ≤ 2^53 − 1 (checked after; past it the line falls
 *     back), and the value is ±k / 10^d: k and 10^d are exact doubles, so the quotient is the correctly rounded value
 *     of the rational the text denotes, which is the double JSON.parse gives (it rounds
 *     correctly too); a sign applied after division is exact (−0 included);
 *   - chunk_ms through scanChunksAt (jsonl-chunks.ts), at its place in the line;
 *   - enum values (phase, status, error_class) among those recordFromObject accepts.
 *
 * Anything else gives -1 and the caller parses the line with JSON.parse + recordFromObject,
 * which gives the same record or the line's error: the scan never decides an error itself.
 * The fields it fills are recordFromObject's for such a line (token_source outside the known
 * ones is 'none', as there).
 */
import { ERROR_CLASSES, PHASES, type RequestRecord } from './record.js';
import { scanChunksAt, type MicrosBuffer } from './jsonl-chunks.js';

type Kind = 'num' | 'numOrNull' | 'str' | 'strOrNull' | 'null' | 'chunks';

const LINE_KEYS: ReadonlyArray<readonly [keyof RequestRecord, Kind]> = [
  ['id', 'num'], ['phase', 'str'], ['stage', 'num'], ['worker', 'num'], ['task', 'strOrNull'], ['session', 'strOrNull'],
  ['turn', 'numOrNull'], ['scheduled_ms', 'num'], ['sent_ms', 'num'], ['first_token_ms', 'numOrNull'], ['chunk_ms', 'chunks'],
  ['end_ms', 'num'], ['prompt_tokens', 'numOrNull'], ['output_tokens', 'num'], ['requested_output_tokens', 'numOrNull'],
  ['token_source', 'str'], ['client_prompt_tokens', 'numOrNull'], ['status', 'str'], ['error_class', 'strOrNull'],
  ['http_status', 'numOrNull'], ['finish_reason', 'strOrNull'], ['error_message', 'null'], ['output_text', 'null'],
];
/** Each key's bytes with its quotes, colon and the separator before it: `{"id":`, `,"phase":`, … */
const KEY_BYTES = LINE_KEYS.map(([k], i) => Buffer.from(`${i === 0 ? '{' : ','}"${k}":`));
const NULL = Buffer.from('null');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const DOT = 0x2e;
const DIGIT_0 = 0x30;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const POW10 = [1, 10, 100, 1000];
const STATUSES = ['ok', 'error', 'timeout', 'cancelled'];

/** A record the scan fills again for every line; the caller copies it out (RecordColumns.add) before the next. */
export function newScannedRecord(): RequestRecord {
  return {
    id: 0, phase: 'measure', stage: 0, worker: 0, task: null, session: null, turn: null, scheduled_ms: 0, sent_ms: 0, first_token_ms: null,
    chunk_ms: new Float64Array(0), end_ms: 0, prompt_tokens: null, output_tokens: 0, requested_output_tokens: null, token_source: 'none',
    client_prompt_tokens: null, status: 'ok', error_class: null, http_status: null, finish_reason: null, error_message: null, output_text: null,
  };
}

let pos = 0;
let num = 0;
let str: string | null = null;

function matches(line: Buffer, at: number, bytes: Buffer): boolean {
  if (at + bytes.length > line.length) return false;
  for (let k = 0; k < bytes.length; k++) if (line[at + k] !== bytes[k]) return false;
  return true;
}

/** A number at pos into `num` (pos past it); false when it is not of the plain shape above. */
function scanNumber(line: Buffer): boolean {
  let i = pos;
  const neg = line[i] === MINUS;
  if (neg) i++;
  let c = line[i];
  if (c === undefined || c < DIGIT_0 || c > DIGIT_0 + 9) return false;
  let k = c - DIGIT_0;
  let digits = 1;
  i++;
  if (k !== 0) {
    while ((c = line[i]) !== undefined && c >= DIGIT_0 && c <= DIGIT_0 + 9) {
      if (++digits > 15) return false;
      k = k * 10 + (c - DIGIT_0);
      i++;
    }
  }
  let d = 0;
  if (line[i] === DOT) {
    i++;
    while ((c = line[i]) !== undefined && c >= DIGIT_0 && c <= DIGIT_0 + 9) {
      if (++d > 3) return false;
      k = k * 10 + (c - DIGIT_0);
      i++;
    }
    if (d === 0) return false;
  }
  // ≤ 15 + 3 digits may exceed 2^53: then k is not the text's integer.
  if (!(k <= Number.MAX_SAFE_INTEGER)) return false;
  const v = k / POW10[d]!;
  num = neg ? -v : v;
  pos = i;
  return true;
}

/** A string at pos into `str` (pos past its closing quote); false when it has an escape or a control character. */
function scanString(line: Buffer): boolean {
  if (line[pos] !== QUOTE) return false;
  const from = pos + 1;
  let ascii = true;
  for (let i = from; i < line.length; i++) {
    const c = line[i]!;
    if (c === QUOTE) {
      str = line.toString(ascii ? 'latin1' : 'utf8', from, i);
      pos = i + 1;
      return true;
    }
    if (c === BACKSLASH || c < 0x20) return false;
    if (c >= 0x80) ascii = false;
  }
  return false;
}

function scanNull(line: Buffer): boolean {
  if (!matches(line, pos, NULL)) return false;
  pos += NULL.length;
  return true;
}

/**
 * Fills `out` from `line` and its chunk times (as µs) into `micros`; the count of chunk times, or
 * -1 when the line is not of the exact shape above (then `out` is partly overwritten: unused).
 */
export function scanRecordLine(line: Buffer, micros: MicrosBuffer, out: RequestRecord): number {
  pos = 0;
  let count = -1;
  const o = out as unknown as Record<string, unknown>;
  for (let f = 0; f < LINE_KEYS.length; f++) {
    const key = KEY_BYTES[f]!;
    if (!matches(line, pos, key)) return -1;
    pos += key.length;
    const [name, kind] = LINE_KEYS[f]!;
    switch (kind) {
      case 'num':
        if (!scanNumber(line)) return -1;
        o[name] = num;
        break;
      case 'numOrNull':
        if (scanNull(line)) o[name] = null;
        else if (scanNumber(line)) o[name] = num;
        else return -1;
        break;
      case 'str':
        if (!scanString(line)) return -1;
        o[name] = str;
        break;
      case 'strOrNull':
        if (scanNull(line)) o[name] = null;
        else if (scanString(line)) o[name] = str;
        else return -1;
        break;
      case 'null':
        if (!scanNull(line)) return -1;
        o[name] = null;
        break;
      case 'chunks': {
        if (line[pos] !== OPEN_BRACKET) return -1;
        count = scanChunksAt(line, pos, micros);
        if (count < 0) return -1;
        pos = micros.close + 1;
        break;
      }
    }
  }
  if (pos !== line.length - 1 || line[pos] !== CLOSE_BRACE) return -1;
  if (!(PHASES as readonly string[]).includes(out.phase)) return -1;
  if (!STATUSES.includes(out.status)) return -1;
  if (out.error_class !== null && !(ERROR_CLASSES as readonly string[]).includes(out.error_class)) return -1;
  const source = out.token_source as string;
  if (source !== 'usage' && source !== 'tokenizer' && source !== 'chunks') out.token_source = 'none';
  return count;
}
