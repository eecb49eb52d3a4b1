/**
 * OpenAI encodings (cl100k_base: GPT-4/3.5; o200k_base: GPT-4o/4.1/o-series; p50k/r50k/gpt2) via
 * js-tiktoken, whose rank tables ship inside the npm package (no download).
 */
import type { Tokenizer } from '../tokenizer.js';

export const TIKTOKEN_ENCODINGS = ['cl100k_base', 'o200k_base', 'p50k_base', 'r50k_base', 'gpt2'] as const;
export type TiktokenEncodingName = (typeof TIKTOKEN_ENCODINGS)[number];

/** Encoding for an OpenAI model name (gpt-4o → o200k_base), or null. */
export function encodingForModel(name: string): TiktokenEncodingName | null {
  const n = name.toLowerCase().replace(/^openai\//, '');
  if ((TIKTOKEN_ENCODINGS as readonly string[]).includes(n)) return n as TiktokenEncodingName;
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4|chatgpt-4o|gpt-oss)/.test(n)) return 'o200k_base';
  if (/^(gpt-4|gpt-3\.5|text-embedding-3|text-embedding-ada-002)/.test(n)) return 'cl100k_base';
  return null;
}

export async function tiktokenTokenizer(encoding: TiktokenEncodingName): Promise<Tokenizer> {
  const { Tiktoken } = await import('js-tiktoken/lite');
  const enc = new Tiktoken(await ranksOf(encoding));
  // nothing allowed or disallowed: text that spells a special token is counted as plain text.
  const encode = (text: string): number[] => enc.encode(text, [], []);
  return { name: encoding, exact: true, encode, count: (text) => encode(text).length };
}

/** Literal import paths, so bundlers and package `exports` resolve them. */
async function ranksOf(encoding: TiktokenEncodingName) {
  switch (encoding) {
    case 'cl100k_base':
      return (await import('js-tiktoken/ranks/cl100k_base')).default;
    case 'o200k_base':
      return (await import('js-tiktoken/ranks/o200k_base')).default;
    case 'p50k_base':
      return (await import('js-tiktoken/ranks/p50k_base')).default;
    case 'r50k_base':
      return (await import('js-tiktoken/ranks/r50k_base')).default;
    case 'gpt2':
      return (await import('js-tiktoken/ranks/gpt2')).default;
  }
}
