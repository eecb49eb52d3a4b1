/**
 * The tokenizer-free token estimate shared by the client (workload prompt counts) and the
 * simulator (its `usage.prompt_tokens`), so that without a real tokenizer both sides count the
 * same way: the simulator's usage then agrees with the client's count, and the real-time and
 * virtual-time simulator drivers see the same prompt lengths.
 *
 * Split the text the way GPT/Llama-3 pre-tokenizers do (an optional leading space glued to a
 * run of letters, a run of up to 3 digits, or a run of punctuation) and count each letter run
 * as ceil(letters / 10) tokens (CJK: 0.7 per character; other non-Latin scripts: 1 per 5),
 * each digit or punctuation run and each whitespace run as 1. Common English words are one token
 * in modern BPE vocabularies, so this is exact for infermeter's synthetic prompts and close for
 * English prose (the error is measured in docs/workloads.md).
 */

const PIECE = / ?\p{L}+| ?\p{N}{1,3}| ?[^\s\p{L}\p{N}]+|\s+/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const NON_LATIN = /[^\p{Script=Latin}]/u;

export function estimateCount(text: string): number {
  let n = 0;
  for (const m of text.matchAll(PIECE)) {
    const piece = m[0];
    const body = piece.length > 1 && piece.charCodeAt(0) === 32 ? piece.slice(1) : piece;
    const c = body.codePointAt(0) ?? 0;
    if (body.length === 0 || /\s/u.test(body[0] as string)) n += 1;
    else if (!/\p{L}/u.test(String.fromCodePoint(c))) n += 1;
    else if (CJK.test(body)) n += Math.ceil([...body].length * 0.7);
    else if (NON_LATIN.test(body)) n += Math.ceil([...body].length / 5);
    else n += Math.ceil(body.length / 10);
  }
  return n;
}
