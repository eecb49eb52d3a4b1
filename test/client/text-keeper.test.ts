import { describe, expect, it } from 'vitest';
import { TextKeeper } from '../../src/client/sse/text-keeper.js';

const enc = new TextEncoder();
/** The body of the JSON string literal for `s`, as a server would send it, at an offset inside a larger buffer. */
function body(s: string): [Uint8Array, number, number] {
  const lit = enc.encode(`xx"${JSON.stringify(s).slice(1, -1)}"yy`);
  return [lit, 3, lit.length - 3];
}

describe('TextKeeper', () => {
  it('joins escaped JSON bodies and decoded strings in order, decoding once', () => {
    const k = new TextKeeper();
    const pieces = ['Hello', ' "quoted"\n', 'caf\u00e9 \ud83d\ude00', 'back\\slash', '\t tab', ''];
    k.appendJsonBody(...body(pieces[0]!));
    k.appendString(pieces[1]!);
    k.appendJsonBody(...body(pieces[2]!));
    expect(k.value).toBe(pieces.slice(0, 3).join(''));
    k.appendString(pieces[3]!);
    k.appendJsonBody(...body(pieces[4]!));
    k.appendJsonBody(...body(pieces[5]!));
    expect(k.value).toBe(pieces.join(''));
  });

  it('keeps \\u escapes that the server chose to send, including split surrogate pairs across pieces', () => {
    const k = new TextKeeper();
    const raw = enc.encode('\\ud83d');
    const raw2 = enc.encode('\\ude00 ok \\u00e9');
    k.appendJsonBody(raw, 0, raw.length);
    k.appendJsonBody(raw2, 0, raw2.length);
    expect(k.value).toBe('\ud83d\ude00 ok \u00e9');
  });

  it('keeps text that is not valid JSON string content as sent instead of losing it', () => {
    const k = new TextKeeper();
    const raw = enc.encode('line1\nline2');
    k.appendJsonBody(raw, 0, raw.length);
    expect(k.value).toBe('line1\nline2');
  });
});
