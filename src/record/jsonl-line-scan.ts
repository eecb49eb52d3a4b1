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
const NULL = Buffer.from('null');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const DOT = 0x2e;
const DIGIT_0 = 0x30;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const N = 0x6e;
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

/**
 * The last string one field's scan made, and its bytes: a line whose string has the same bytes
 * gets the same string without decoding them again (a run's tasks, phases, finish reasons… are few).
 */
class LastString {
  readonly bytes = Buffer.alloc(64);
  len = -1;
  value = '';
}

/** A string at pos into `str` (pos past its closing quote); false when it has an escape or a control character. */
function scanString(line: Buffer, last: LastString): boolean {
  if (line[pos] !== QUOTE) return false;
  const from = pos + 1;
  const end = line.length;
  let ascii = true;
  let i = from;
  for (; i < end; i++) {
    const c = line[i]!;
    if (c === QUOTE) break;
    if (c === BACKSLASH || c < 0x20) return false;
    if (c >= 0x80) ascii = false;
  }
  if (i === end) return false;
  pos = i + 1;
  const n = i - from;
  if (n === last.len) {
    const b = last.bytes;
    let k = 0;
    while (k < n && line[from + k] === b[k]) k++;
    if (k === n) {
      str = last.value;
      return true;
    }
  }
  str = line.toString(ascii ? 'latin1' : 'utf8', from, i);
  if (n <= last.bytes.length) {
    line.copy(last.bytes, 0, from, i);
    last.len = n;
    last.value = str;
  } else last.len = -1;
  return true;
}

function scanNull(line: Buffer): boolean {
  if (!matches(line, pos, NULL)) return false;
  pos += NULL.length;
  return true;
}

/** A number, or null (then `num` is NaN), at pos. */
function scanNumberOrNull(line: Buffer): boolean {
  if (line[pos] !== N) return scanNumber(line);
  if (!scanNull(line)) return false;
  num = NaN;
  return true;
}

/** A string, or null (then `str` is null), at pos. */
function scanStringOrNull(line: Buffer, last: LastString): boolean {
  if (line[pos] !== N) return scanString(line, last);
  if (!scanNull(line)) return false;
  str = null;
  return true;
}

/** Whether line has the f-th key at pos (then pos is past it). */
function key(line: Buffer, f: number): boolean {
  const k = KEY_BYTES[f]!;
  if (!matches(line, pos, k)) return false;
  pos += k.length;
  return true;
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
  pos = 0;
  if (!key(line, 0) || !scanNumber(line)) return -1;
  out.id = num;
  if (!key(line, 1) || !scanString(line, phaseLast)) return -1;
  out.phase = str as RequestRecord['phase'];
  if (!key(line, 2) || !scanNumber(line)) return -1;
  out.stage = num;
  if (!key(line, 3) || !scanNumber(line)) return -1;
  out.worker = num;
  if (!key(line, 4) || !scanStringOrNull(line, taskLast)) return -1;
  out.task = str;
  if (!key(line, 5) || !scanStringOrNull(line, sessionLast)) return -1;
  out.session = str;
  if (!key(line, 6) || !scanNumberOrNull(line)) return -1;
  out.turn = orNull(num);
  if (!key(line, 7) || !scanNumber(line)) return -1;
  out.scheduled_ms = num;
  if (!key(line, 8) || !scanNumber(line)) return -1;
  out.sent_ms = num;
  if (!key(line, 9) || !scanNumberOrNull(line)) return -1;
  out.first_token_ms = orNull(num);
  if (!key(line, 10) || line[pos] !== OPEN_BRACKET) return -1;
  const count = scanChunksAt(line, pos, micros);
  if (count < 0) return -1;
  pos = micros.close + 1;
  if (!key(line, 11) || !scanNumber(line)) return -1;
  out.end_ms = num;
  if (!key(line, 12) || !scanNumberOrNull(line)) return -1;
  out.prompt_tokens = orNull(num);
  if (!key(line, 13) || !scanNumber(line)) return -1;
  out.output_tokens = num;
  if (!key(line, 14) || !scanNumberOrNull(line)) return -1;
  out.requested_output_tokens = orNull(num);
  if (!key(line, 15) || !scanString(line, sourceLast)) return -1;
  const source = str;
  out.token_source = source === 'usage' || source === 'tokenizer' || source === 'chunks' ? source : 'none';
  if (!key(line, 16) || !scanNumberOrNull(line)) return -1;
  out.client_prompt_tokens = orNull(num);
  if (!key(line, 17) || !scanString(line, statusLast)) return -1;
  out.status = str as RequestRecord['status'];
  if (!key(line, 18) || !scanStringOrNull(line, errorLast)) return -1;
  out.error_class = str as RequestRecord['error_class'];
  if (!key(line, 19) || !scanNumberOrNull(line)) return -1;
  out.http_status = orNull(num);
  if (!key(line, 20) || !scanStringOrNull(line, finishLast)) return -1;
  out.finish_reason = str;
  if (!key(line, 21) || !scanNull(line)) return -1;
  out.error_message = null;
  if (!key(line, 22) || !scanNull(line)) return -1;
  out.output_text = null;
  if (pos !== line.length - 1 || line[pos] !== CLOSE_BRACE) return -1;
  if (!(PHASES as readonly string[]).includes(out.phase)) return -1;
  if (!STATUSES.includes(out.status)) return -1;
  if (out.error_class !== null && !(ERROR_CLASSES as readonly string[]).includes(out.error_class)) return -1;
  return count;
}
