/**
 * Fast classification of one SSE `data:` payload of an OpenAI-compatible stream, straight from
 * the bytes, without building a string or an object.
 *
 * It is a validating recursive-descent JSON scanner that knows only the few paths the
 * measurement needs:
 *
 *   { "choices": [ { "text": S|null,
 *                    "delta": { "content": S|null, "reasoning_content": S|null,
 *                               "reasoning": S|null, "tool_calls": [..]|null, ... },
 *                    "finish_reason": null, ... }, ... ],
 *     "usage": null, ... }
 *
 * It answers one of three things:
 *  - NONE:    valid JSON object, carries no output content, nothing else of interest;
 *  - CONTENT: valid JSON object with a non-empty text / content / reasoning string or a
 *             non-empty tool_calls array in some choice; `contentInfo.kinds` then says which:
 *             KIND_ANSWER (text, content, tool_calls) and/or KIND_REASONING (reasoning_content,
 *             reasoning);
 *  - SLOW:    anything else — a non-null `usage`, `finish_reason`, `error`, `"object":"error"`,
 *             a duplicated or escaped key on a path we read, an unexpected type, `[DONE]`,
 *             invalid JSON, or a CR/LF byte (a line break: the caller only hands us one line).
 *             The caller then decodes the payload and uses JSON.parse, which is the
 *             reference semantics. SLOW happens about twice per request (finish, usage).
 *
 * Invariant: NONE/CONTENT is only answered for bytes JSON.parse accepts (after UTF-8
 * decoding) and whose parsed value the slow path would classify the same way with no side
 * effect besides counting content. Being conservative (SLOW) is always correct.
 *
 * Why validate every byte instead of searching for `"content":"`: a truncated or otherwise
 * broken payload must be reported as malformed, and key-like text inside strings
 * (`"content":"\"text\":\"x\""`) or inside `logprobs` (which has its own `content` key) must
 * not be mistaken for output.
 */

export const CLS_NONE = 0;
export const CLS_CONTENT = 1;
export const CLS_SLOW = 2;

/** Bits of what a content event carries: the answer (text, content, tool calls) and/or reasoning. */
export const KIND_ANSWER = 1;
export const KIND_REASONING = 2;

// Byte constants.
const QUOTE = 0x22;
const BSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACK = 0x5b;
const RBRACK = 0x5d;
const SPACE = 0x20;
const TAB = 0x09;

/** Nesting allowed in ignored values before giving up to JSON.parse. */
const MAX_DEPTH = 256;

const ascii = (s: string): Uint8Array => Uint8Array.from(s, (ch) => ch.charCodeAt(0));
const K_CHOICES = ascii('choices');
const K_USAGE = ascii('usage');
const K_ERROR = ascii('error');
const K_OBJECT = ascii('object');
const K_TEXT = ascii('text');
const K_DELTA = ascii('delta');
const K_FINISH = ascii('finish_reason');
const K_CONTENT = ascii('content');
const K_REASONING = ascii('reasoning');
const K_REASONING_CONTENT = ascii('reasoning_content');
const K_TOOL_CALLS = ascii('tool_calls');

/**
 * Scanner state lives in module variables: the scanner is synchronous and not re-entrant.
 * `b` is released after every call.
 */
let b: Uint8Array = new Uint8Array(0);
let p = 0;
let end = 0;
/** KIND_* bits of the non-empty content seen so far. */
let content = 0;
/** Start and end (exclusive) of the last key or string scanned by scanKey/scanStringValue. */
let tokS = 0;
let tokE = 0;

/**
 * Classify the payload `bytes[start, stop)` (a whole data value). Returns CLS_NONE,
 * CLS_CONTENT or CLS_SLOW. Spaces and tabs around the object are allowed (JSON whitespace);
 * CR and LF are not, since they would end the SSE line.
 */
export function classifyPayload(bytes: Uint8Array, start: number, stop: number): number {
  const r = run(bytes, start, stop);
  return r !== CLS_SLOW && lineEnd === stop ? r : CLS_SLOW;
}

/**
 * Classify a data value that starts at `start` and ends at the first CR or LF, where `stop` is
 * the end of the bytes available (the line may continue in the next network read). On
 * CLS_NONE/CLS_CONTENT, `scanEnd()` is where the value ends: `stop`, or a CR/LF byte.
 * Scanning the JSON doubles as the search for the line end on the hot path.
 */
export function classifyLine(bytes: Uint8Array, start: number, stop: number): number {
  return run(bytes, start, stop);
}

/** Where the last classified value ended (valid after a non-SLOW answer). */
export function scanEnd(): number {
  return lineEnd;
}

let lineEnd = 0;

/**
 * What the last non-SLOW classification saw on the content paths, for the scanner's template
 * fast path (see stream-scanner.ts): the number of string values at content paths (text,
 * content, reasoning_content, reasoning; empty ones included), the raw bytes of the last one
 * (between its quotes, `strEsc` when it has escapes) and the KIND_* of its path (`strKind`, set
 * even when the string is empty), whether a non-empty tool_calls array made it content, and the
 * KIND_* bits of all non-empty content (`kinds`).
 */
export const contentInfo = { strings: 0, strS: 0, strE: 0, strEsc: false, strKind: KIND_ANSWER, tools: false, kinds: 0 };

function run(bytes: Uint8Array, start: number, stop: number): number {
  b = bytes;
  p = start;
  end = stop;
  content = 0;
  contentInfo.strings = 0;
  contentInfo.tools = false;
  let r = CLS_SLOW;
  skipWs();
  if (p < end && b[p] === LBRACE && topObject()) {
    skipWs();
    if (p === end || b[p] === 0x0a || b[p] === 0x0d) {
      r = content !== 0 ? CLS_CONTENT : CLS_NONE;
      contentInfo.kinds = content;
      lineEnd = p;
    }
  }
  b = EMPTY;
  return r;
}

const EMPTY = new Uint8Array(0);

function skipWs(): void {
  let q = p;
  while (q < end) {
    const c = b[q];
    if (c !== SPACE && c !== TAB) break;
    q++;
  }
  p = q;
}

function eq(lit: Uint8Array): boolean {
  const n = lit.length;
  if (tokE - tokS !== n) return false;
  for (let i = 0; i < n; i++) if (b[tokS + i] !== lit[i]) return false;
  return true;
}

/**
 * Scan a string at p (b[p] is '"'). Sets tokS/tokE to the raw bytes between the quotes.
 * Returns 0 on a plain string, 1 if it contained an escape, -1 if invalid.
 */
function scanString(): number {
  // Locals, not the module variables, inside the loop: V8 keeps them in registers, while module
  // variables are loaded and stored through the module context every step.
  const bb = b;
  const e = end;
  let q = p + 1;
  tokS = q;
  let escaped = 0;
  while (q < e) {
    const c = bb[q]!;
    if (c === QUOTE) {
      tokE = q;
      p = q + 1;
      return escaped;
    }
    if (c === BSLASH) {
      escaped = 1;
      if (q + 1 >= e) return -1;
      const x = bb[q + 1];
      // " \ / b f n r t
      if (x === 0x22 || x === 0x5c || x === 0x2f || x === 0x62 || x === 0x66 || x === 0x6e || x === 0x72 || x === 0x74) {
        q += 2;
      } else if (x === 0x75) {
        if (q + 6 > e) return -1;
        for (let i = q + 2; i < q + 6; i++) if (!isHex(bb[i]!)) return -1;
        q += 6;
      } else {
        return -1;
      }
    } else if (c < 0x20) {
      return -1; // raw control characters (including CR/LF) are invalid inside JSON strings
    } else {
      q++;
    }
  }
  return -1;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
}

/** After a key: whitespace, ':' and whitespace; p then points at the value. */
function colon(): boolean {
  skipWs();
  if (p >= end || b[p] !== COLON) return false;
  p++;
  skipWs();
  return p < end;
}

/** After a member or element: returns 1 for ',', 0 for the closing byte, -1 otherwise. */
function next(close: number): number {
  skipWs();
  if (p >= end) return -1;
  const c = b[p++];
  if (c === COMMA) {
    skipWs();
    return 1;
  }
  return c === close ? 0 : -1;
}

/** Open an object at p; true when it was empty (p then after '}'). */
function openEmptyObject(): boolean {
  p++;
  skipWs();
  if (p < end && b[p] === RBRACE) {
    p++;
    return true;
  }
  return false;
}

/** A key of an object on a path we read: must be a plain (unescaped) string. */
function key(): boolean {
  if (p >= end || b[p] !== QUOTE) return false;
  return scanString() === 0 && colon();
}

function isNull(): boolean {
  if (p + 4 <= end && b[p] === 0x6e && b[p + 1] === 0x75 && b[p + 2] === 0x6c && b[p + 3] === 0x6c) {
    p += 4;
    return true;
  }
  return false;
}

/** A string or null at a path of kind `kind` (KIND_*); a non-empty string marks content of that kind. */
function contentString(kind: number): boolean {
  if (p < end && b[p] === QUOTE) {
    const esc = scanString();
    if (esc < 0) return false;
    if (tokE > tokS) content |= kind;
    contentInfo.strings++;
    contentInfo.strS = tokS;
    contentInfo.strE = tokE;
    contentInfo.strEsc = esc === 1;
    contentInfo.strKind = kind;
    return true;
  }
  return isNull();
}

function topObject(): boolean {
  if (openEmptyObject()) return true;
  let seen = 0;
  for (;;) {
    if (!key()) return false;
    if (eq(K_CHOICES)) {
      if (seen & 1) return false;
      seen |= 1;
      if (b[p] !== LBRACK || !choices()) return false;
    } else if (eq(K_USAGE)) {
      // a non-null usage needs its numbers: slow path
      if (seen & 2) return false;
      seen |= 2;
      if (!isNull()) return false;
    } else if (eq(K_ERROR)) {
      return false;
    } else if (eq(K_OBJECT)) {
      if (seen & 4) return false;
      seen |= 4;
      if (b[p] === QUOTE) {
        if (scanString() < 0) return false;
        if (eq(K_ERROR)) return false;
      } else if (!skipValue(1)) return false;
    } else if (!skipValue(1)) return false;
    const r = next(RBRACE);
    if (r <= 0) return r === 0;
  }
}

function choices(): boolean {
  p++;
  skipWs();
  if (p < end && b[p] === RBRACK) {
    p++;
    return true;
  }
  for (;;) {
    if (p >= end || b[p] !== LBRACE || !choice()) return false;
    const r = next(RBRACK);
    if (r <= 0) return r === 0;
  }
}

function choice(): boolean {
  if (openEmptyObject()) return true;
  let seen = 0;
  for (;;) {
    if (!key()) return false;
    if (eq(K_TEXT)) {
      if (seen & 1) return false;
      seen |= 1;
      if (!contentString(KIND_ANSWER)) return false;
    } else if (eq(K_DELTA)) {
      if (seen & 2) return false;
      seen |= 2;
      if (b[p] !== LBRACE || !delta()) return false;
    } else if (eq(K_FINISH)) {
      // a finish_reason value is needed: slow path
      if (seen & 4) return false;
      seen |= 4;
      if (!isNull()) return false;
    } else if (!skipValue(3)) return false;
    const r = next(RBRACE);
    if (r <= 0) return r === 0;
  }
}

function delta(): boolean {
  if (openEmptyObject()) return true;
  let seen = 0;
  for (;;) {
    if (!key()) return false;
    let bit = 0;
    if (eq(K_CONTENT)) bit = 1;
    else if (eq(K_REASONING_CONTENT)) bit = 2;
    else if (eq(K_REASONING)) bit = 4;
    if (bit !== 0) {
      if (seen & bit) return false;
      seen |= bit;
      if (!contentString(bit === 1 ? KIND_ANSWER : KIND_REASONING)) return false;
    } else if (eq(K_TOOL_CALLS)) {
      if (seen & 8) return false;
      seen |= 8;
      if (b[p] === LBRACK) {
        const at = p;
        p++;
        skipWs();
        if (p < end && b[p] !== RBRACK) {
          content |= KIND_ANSWER; // any tool-call delta is answer content
          contentInfo.tools = true;
        }
        p = at;
        if (!skipValue(5)) return false;
      } else if (!isNull()) return false;
    } else if (!skipValue(5)) return false;
    const r = next(RBRACE);
    if (r <= 0) return r === 0;
  }
}

/** Validate and skip any JSON value at p. */
function skipValue(depth: number): boolean {
  if (p >= end) return false;
  const c = b[p];
  if (c === QUOTE) return scanString() >= 0;
  if (c === LBRACE) {
    if (depth > MAX_DEPTH) return false;
    if (openEmptyObject()) return true;
    for (;;) {
      if (p >= end || b[p] !== QUOTE || scanString() < 0 || !colon() || !skipValue(depth + 1)) return false;
      const r = next(RBRACE);
      if (r <= 0) return r === 0;
    }
  }
  if (c === LBRACK) {
    if (depth > MAX_DEPTH) return false;
    p++;
    skipWs();
    if (p < end && b[p] === RBRACK) {
      p++;
      return true;
    }
    for (;;) {
      if (!skipValue(depth + 1)) return false;
      const r = next(RBRACK);
      if (r <= 0) return r === 0;
    }
  }
  if (c === 0x6e) return isNull();
  if (c === 0x74) return literal(0x74, 0x72, 0x75, 0x65); // true
  if (c === 0x66) {
    // false
    if (p + 5 <= end && b[p + 1] === 0x61 && b[p + 2] === 0x6c && b[p + 3] === 0x73 && b[p + 4] === 0x65) {
      p += 5;
      return true;
    }
    return false;
  }
  return number();
}

function literal(c0: number, c1: number, c2: number, c3: number): boolean {
  if (p + 4 <= end && b[p] === c0 && b[p + 1] === c1 && b[p + 2] === c2 && b[p + 3] === c3) {
    p += 4;
    return true;
  }
  return false;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
function number(): boolean {
  const bb = b;
  const e = end;
  let q = p;
  if (bb[q] === 0x2d) q++;
  if (q >= e) return false;
  if (bb[q] === 0x30) q++;
  else if (isDigit(bb[q]!)) while (q < e && isDigit(bb[q]!)) q++;
  else return false;
  if (q < e && bb[q] === 0x2e) {
    q++;
    if (q >= e || !isDigit(bb[q]!)) return false;
    while (q < e && isDigit(bb[q]!)) q++;
  }
  if (q < e && (bb[q]! | 0x20) === 0x65) {
    q++;
    if (q < e && (bb[q] === 0x2b || bb[q] === 0x2d)) q++;
    if (q >= e || !isDigit(bb[q]!)) return false;
    while (q < e && isDigit(bb[q]!)) q++;
  }
  p = q;
  return true;
}
