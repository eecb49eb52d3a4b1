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

/** The line's keys in order and each value's kind; scanRecordLine reads them in this order, one statement each. */
const LINE_KEYS: ReadonlyArray<readonly [keyof RequestRecord, Kind]> = [
  ['id', 'num'], ['phase', 'str'], ['stage', 'num'], ['worker', 'num'], ['task', 'strOrNull'], ['session', 'strOrNull'],
  ['turn', 'numOrNull'], ['scheduled_ms', 'num'], ['sent_ms', 'num'], ['first_token_ms', 'numOrNull'], ['chunk_ms', 'chunks'],
  ['end_ms', 'num'], ['prompt_tokens', 'numOrNull'], ['output_tokens', 'num'], ['requested_output_tokens', 'numOrNull'],
  ['token_source', 'str'], ['client_prompt_tokens', 'numOrNull'], ['status', 'str'], ['error_class', 'strOrNull'],
  ['http_status', 'numOrNull'], ['finish_reason', 'strOrNull'], ['error_message', 'null'], ['output_text', 'null'],
];
/** Each key's bytes with its quotes, colon and the separator before it: `{"id":`, `,"phase":`, … */
const KEY_BYTES = LINE_KEYS.map(([k], i) => Buffer.from(`${i === 0 ? '{' : ','}"${k}":`));
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const DOT = 0x2e;
const DIGIT_0 = 0x30;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const N = 0x6e;
const U = 0x75;
const L = 0x6c;
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

// Each scan takes the index where its value starts and returns the index past it, or −1 when the
// text is not of the plain shape above; its value is in NUM[0] (a typed array: a double kept
// there is not boxed) or `str`.
const NUM = new Float64Array(1);
let str: string | null = null;

/** Past the f-th key's bytes at i, or −1. */
function key(line: Buffer, i: number, f: number): number {
  const k = KEY_BYTES[f]!;
  const n = k.length;
  if (i + n > line.length) return -1;
  for (let q = 0; q < n; q++) if (line[i + q] !== k[q]) return -1;
  return i + n;
}

/** A number at i into NUM[0]. */
function scanNumber(line: Buffer, i: number): number {
  const end = line.length;
  const neg = line[i] === MINUS;
  if (neg) i++;
  if (i >= end) return -1;
  let k = line[i]! - DIGIT_0;
  if (k >>> 0 > 9) return -1;
  let digits = 1;
  let d: number;
  i++;
  if (k !== 0) {
    while (i < end && (d = line[i]! - DIGIT_0) >>> 0 <= 9) {
      if (++digits > 15) return -1;
      k = k * 10 + d;
      i++;
    }
  }
  let decimals = 0;
  if (i < end && line[i] === DOT) {
    i++;
    while (i < end && (d = line[i]! - DIGIT_0) >>> 0 <= 9) {
      if (++decimals > 3) return -1;
      k = k * 10 + d;
      i++;
    }
    if (decimals === 0) return -1;
  }
  // ≤ 15 + 3 digits may exceed 2^53: then k is not the text's integer.
  if (!(k <= Number.MAX_SAFE_INTEGER)) return -1;
  const v = k / POW10[decimals]!;
  NUM[0] = neg ? -v : v;
  return i;
}

/**
 * The last string one field's scan made, and its bytes: a line whose string has the same bytes
 * gets the same string without decoding them again (a run's tasks, phases, finish reasons… are few).
 */
class LastString {
  readonly bytes = Buffer.alloc(64);
  len = -1;
  value = '';
}

/** A string at i into `str`; −1 when it has an escape or a control character. */
function scanString(line: Buffer, i: number, last: LastString): number {
  if (line[i] !== QUOTE) return -1;
  const from = i + 1;
  const end = line.length;
  let ascii = true;
  for (i = from; i < end; i++) {
    const c = line[i]!;
    if (c === QUOTE) break;
    if (c === BACKSLASH || c < 0x20) return -1;
    if (c >= 0x80) ascii = false;
  }
  if (i === end) return -1;
  const n = i - from;
  if (n === last.len) {
    const b = last.bytes;
    let k = 0;
    while (k < n && line[from + k] === b[k]) k++;
    if (k === n) {
      str = last.value;
      return i + 1;
    }
  }
  str = line.toString(ascii ? 'latin1' : 'utf8', from, i);
  if (n <= last.bytes.length) {
    line.copy(last.bytes, 0, from, i);
    last.len = n;
    last.value = str;
  } else last.len = -1;
  return i + 1;
}

/** Past `null` at i, or −1. */
function scanNull(line: Buffer, i: number): number {
  return i + 4 <= line.length && line[i] === N && line[i + 1] === U && line[i + 2] === L && line[i + 3] === L ? i + 4 : -1;
}

/** A number, or null (then NUM[0] is NaN), at i. */
function scanNumberOrNull(line: Buffer, i: number): number {
  if (line[i] !== N) return scanNumber(line, i);
  NUM[0] = NaN;
  return scanNull(line, i);
}

/** A string, or null (then `str` is null), at i. */
function scanStringOrNull(line: Buffer, i: number, last: LastString): number {
  if (line[i] !== N) return scanString(line, i, last);
  str = null;
  return scanNull(line, i);
}

const orNull = (v: number): number | null => (Number.isNaN(v) ? null : v);
const phaseLast = new LastString();
const taskLast = new LastString();
const sessionLast = new LastString();
const sourceLast = new LastString();
const statusLast = new LastString();
const errorLast = new LastString();
const finishLast = new LastString();

/**
 * Fills `out` from `line` and its chunk times (as µs) into `micros`; the count of chunk times, or
 * -1 when the line is not of the exact shape above (then `out` is partly overwritten: unused).
 * One statement per field of LINE_KEYS, in its order (no loop over the table: a keyed store per
 * field and the table's reads cost more than the scan itself).
 */
export function scanRecordLine(line: Buffer, micros: MicrosBuffer, out: RequestRecord): number {
  let i = 0;
  if ((i = key(line, i, 0)) < 0 || (i = scanNumber(line, i)) < 0) return -1;
  out.id = NUM[0]!;
  if ((i = key(line, i, 1)) < 0 || (i = scanString(line, i, phaseLast)) < 0) return -1;
  out.phase = str as RequestRecord['phase'];
  if ((i = key(line, i, 2)) < 0 || (i = scanNumber(line, i)) < 0) return -1;
  out.stage = NUM[0]!;
  if ((i = key(line, i, 3)) < 0 || (i = scanNumber(line, i)) < 0) return -1;
  out.worker = NUM[0]!;
  if ((i = key(line, i, 4)) < 0 || (i = scanStringOrNull(line, i, taskLast)) < 0) return -1;
  out.task = str;
  if ((i = key(line, i, 5)) < 0 || (i = scanStringOrNull(line, i, sessionLast)) < 0) return -1;
  out.session = str;
  if ((i = key(line, i, 6)) < 0 || (i = scanNumberOrNull(line, i)) < 0) return -1;
  out.turn = orNull(NUM[0]!);
  if ((i = key(line, i, 7)) < 0 || (i = scanNumber(line, i)) < 0) return -1;
  out.scheduled_ms = NUM[0]!;
  if ((i = key(line, i, 8)) < 0 || (i = scanNumber(line, i)) < 0) return -1;
  out.sent_ms = NUM[0]!;
  if ((i = key(line, i, 9)) < 0 || (i = scanNumberOrNull(line, i)) < 0) return -1;
  out.first_token_ms = orNull(NUM[0]!);
  if ((i = key(line, i, 10)) < 0 || line[i] !== OPEN_BRACKET) return -1;
  const count = scanChunksAt(line, i, micros);
  if (count < 0) return -1;
  i = micros.close + 1;
  if ((i = key(line, i, 11)) < 0 || (i = scanNumber(line, i)) < 0) return -1;
  out.end_ms = NUM[0]!;
  if ((i = key(line, i, 12)) < 0 || (i = scanNumberOrNull(line, i)) < 0) return -1;
  out.prompt_tokens = orNull(NUM[0]!);
  if ((i = key(line, i, 13)) < 0 || (i = scanNumber(line, i)) < 0) return -1;
  out.output_tokens = NUM[0]!;
  if ((i = key(line, i, 14)) < 0 || (i = scanNumberOrNull(line, i)) < 0) return -1;
  out.requested_output_tokens = orNull(NUM[0]!);
  if ((i = key(line, i, 15)) < 0 || (i = scanString(line, i, sourceLast)) < 0) return -1;
  const source = str;
  out.token_source = source === 'usage' || source === 'tokenizer' || source === 'chunks' ? source : 'none';
  if ((i = key(line, i, 16)) < 0 || (i = scanNumberOrNull(line, i)) < 0) return -1;
  out.client_prompt_tokens = orNull(NUM[0]!);
  if ((i = key(line, i, 17)) < 0 || (i = scanString(line, i, statusLast)) < 0) return -1;
  out.status = str as RequestRecord['status'];
  if ((i = key(line, i, 18)) < 0 || (i = scanStringOrNull(line, i, errorLast)) < 0) return -1;
  out.error_class = str as RequestRecord['error_class'];
  if ((i = key(line, i, 19)) < 0 || (i = scanNumberOrNull(line, i)) < 0) return -1;
  out.http_status = orNull(NUM[0]!);
  if ((i = key(line, i, 20)) < 0 || (i = scanStringOrNull(line, i, finishLast)) < 0) return -1;
  out.finish_reason = str;
  if ((i = key(line, i, 21)) < 0 || (i = scanNull(line, i)) < 0) return -1;
  out.error_message = null;
  if ((i = key(line, i, 22)) < 0 || (i = scanNull(line, i)) < 0) return -1;
  out.output_text = null;
  if (i !== line.length - 1 || line[i] !== CLOSE_BRACE) return -1;
  if (!(PHASES as readonly string[]).includes(out.phase)) return -1;
  if (!STATUSES.includes(out.status)) return -1;
  if (out.error_class !== null && !(ERROR_CLASSES as readonly string[]).includes(out.error_class)) return -1;
  return count;
}
