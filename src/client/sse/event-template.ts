/**
 * Event template: the scanner's fastest path. Within one response, content events differ only
 * in the content string; everything else (id, created, model, indexes, nulls) repeats byte for
 * byte:
 *
 *   data: {"id":"chatcmpl-7d2f","object":"chat.completion.chunk",…,"delta":{"content":"  tok  "},"logprobs":null,"finish_reason":null}]}
 *   └──────────────────────────────── pre ──────────────────────────┘└ str ┘└──────────────── suf ──────────────────────┘
 *
 * When the full classifier (json-classify.ts) has validated a line whose content flag comes from
 * exactly one string value at a content path, we keep `pre` (line start through the string's
 * opening quote) and `suf` (its closing quote through the line end). A later line that is
 * `pre` + a valid JSON string body + `suf` + CR/LF is valid JSON of the same shape: replacing a
 * string by a string changes neither validity, keys nor any other value. So it carries content
 * exactly when the new string is non-empty. Checking that costs two memory compares (4 bytes a
 * step) and one short scan of the string, instead of a validating pass over ~230 bytes.
 */

const QUOTE = 0x22;
const EMPTY = new Uint8Array(0);
const EMPTY_VIEW = new DataView(EMPTY.buffer);

/**
 * Adaptivity: a server whose events vary beyond the content string (OpenAI's `obfuscation`
 * padding, a per-chunk timestamp) makes every match fail and every event relearn. After
 * MAX_MISSES misses in a row the template is dropped and not relearned for COOLDOWN events.
 */
const MAX_MISSES = 8;
const COOLDOWN = 256;
const BSLASH = 0x5c;

export class EventTemplate {
  // allocated on first learn(): many short requests never need them
  private pre = EMPTY;
  private preView = EMPTY_VIEW;
  private preLen = 0;
  private suf = EMPTY;
  private sufView = EMPTY_VIEW;
  private sufLen = 0;
  /** First byte of `pre` (always 'd' of `data:`), or -1 with no template. */
  first = -1;
  /** KIND_ANSWER or KIND_REASONING (json-classify.ts): the path of the template's string. */
  kind = 1;
  /** Where the data payload starts, from the line start (`data: ` = 6, `data:` = 5). */
  payloadOff = 0;
  /** After a successful match: the string's raw bytes are b[strS, strE), with escapes if strEsc. */
  strS = 0;
  strE = 0;
  strEsc = false;
  private misses = 0;
  private cooldown = 0;

  /**
   * Learn from line b[lineS, lineE), payload from `payloadS`, whose only content string is
   * b[strS, strE), at a path of kind `kind`.
   */
  learn(b: Uint8Array, lineS: number, payloadS: number, strS: number, strE: number, lineE: number, kind: number): void {
    if (this.cooldown > 0) {
      this.cooldown--;
      return;
    }
    this.payloadOff = payloadS - lineS;
    this.preLen = strS - lineS;
    this.sufLen = lineE - strE;
    if (this.pre.length < this.preLen) {
      this.pre = new Uint8Array(Math.max(256, this.preLen * 2));
      this.preView = new DataView(this.pre.buffer);
    }
    if (this.suf.length < this.sufLen) {
      this.suf = new Uint8Array(Math.max(128, this.sufLen * 2));
      this.sufView = new DataView(this.suf.buffer);
    }
    this.pre.set(b.subarray(lineS, strS));
    this.suf.set(b.subarray(strE, lineE));
    this.first = b[lineS]!;
    this.kind = kind;
  }

  /** No template until the next learn(): the stream ended ([DONE]), later events must be seen whole. */
  forget(): void {
    this.first = -1;
  }

  /**
   * Does the line at b[i…) (`view` is a DataView of all of b) match? Returns the index of the
   * CR/LF ending it; -1 when it does not match; -2 when b ends before the line does and all of
   * it so far matched (the line is probably cut by the end of the read).
   */
  match(b: Uint8Array, view: DataView, i: number, n: number): number {
    const k = this.tryMatch(b, view, i, n);
    if (k !== -1) this.misses = 0;
    else if (++this.misses > MAX_MISSES) {
      this.first = -1;
      this.misses = 0;
      this.cooldown = COOLDOWN;
    }
    return k;
  }

  private tryMatch(b: Uint8Array, view: DataView, i: number, n: number): number {
    const preLen = this.preLen;
    const s = i + preLen;
    if (s > n) return n - i <= 0 || same(view, i, this.preView, n - i) ? -2 : -1;
    if (!same(view, i, this.preView, preLen)) return -1;
    // The string body: any byte ≥ 0x20 but '"' and '\'; escapes must be valid JSON escapes.
    let j = s;
    let esc = false;
    for (;;) {
      if (j >= n) return -2;
      const c = b[j]!;
      if (c === QUOTE) break;
      if (c === BSLASH) {
        esc = true;
        if (j + 1 >= n) return -2;
        const e = b[j + 1]!;
        if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) j += 2;
        else if (e !== 0x75) return -1;
        else if (j + 6 > n) return -2;
        else if (isHex(b[j + 2]!) && isHex(b[j + 3]!) && isHex(b[j + 4]!) && isHex(b[j + 5]!)) j += 6;
        else return -1;
      } else if (c < 0x20) return -1;
      else j++;
    }
    const k = j + this.sufLen;
    if (k >= n) return same(view, j, this.sufView, n - j) ? -2 : -1;
    if (!same(view, j, this.sufView, this.sufLen)) return -1;
    const t = b[k];
    if (t !== 0x0a && t !== 0x0d) return -1;
    this.strS = s;
    this.strE = j;
    this.strEsc = esc;
    return k;
  }
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
}

/** view[at, at+len) equals t[0, len). Four bytes a step: faster than a byte loop (docs/performance.md). */
function same(view: DataView, at: number, t: DataView, len: number): boolean {
  let i = 0;
  for (; i + 4 <= len; i += 4) if (view.getInt32(at + i) !== t.getInt32(i)) return false;
  for (; i < len; i++) if (view.getUint8(at + i) !== t.getUint8(i)) return false;
  return true;
}
