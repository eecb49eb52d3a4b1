/**
 * ShareGPT (vLLM's `--dataset-name sharegpt`): a JSON array (or JSONL) of
 * `{ "id": …, "conversations": [{ "from": "human", "value": … }, { "from": "gpt", "value": … }, …] }`.
 * As vLLM: the first human turn is the prompt and the reply after it sets the output length
 * (its token count); a leading system turn is kept in `messages`. Entries without a human turn
 * followed by a reply are malformed.
 */
import { readFile } from 'node:fs/promises';
import { UserError } from '../../errors/user-error.js';
import type { Tokenizer } from '../tokenizer.js';
import type { ChatMessage } from '../types.js';
import type { Entry, Issues } from './entries.js';
import { normalizeRole } from './entries.js';
import { arrayElementLines, jsonErrorLine } from './json-text.js';

export async function readShareGpt(path: string, tok: Tokenizer, issues: Issues): Promise<Entry[]> {
  const text = await readText(path, 'workload.dataset_path');
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('[')) {
    // JSONL variant: one conversation per line.
    const out: Entry[] = [];
    text.split('\n').forEach((raw, i) => {
      if (raw.trim() === '') return;
      let v: unknown;
      try {
        v = JSON.parse(raw);
      } catch (e) {
        issues.skip(i + 1, `invalid JSON (${(e as Error).message})`);
        return;
      }
      const r = shareGptEntry(v, tok, i + 1);
      if (typeof r === 'string') issues.skip(i + 1, r);
      else out.push(r);
    });
    return out;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    const line = jsonErrorLine(text, e);
    throw new UserError(`${path}${line ? `:${line}` : ''}: workload.dataset_path: invalid JSON: ${(e as Error).message}`);
  }
  const arr = data as unknown[];
  const lines = arrayElementLines(text);
  const out: Entry[] = [];
  arr.forEach((v, i) => {
    const line = lines[i] ?? 0;
    const r = shareGptEntry(v, tok, line);
    if (typeof r === 'string') issues.skip(line, `entry ${i}: ${r}`);
    else out.push(r);
  });
  return out;
}

export async function readText(path: string, field: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    throw new UserError(`${field}: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** One ShareGPT conversation → Entry, or the reason it is malformed. */
export function shareGptEntry(v: unknown, tok: Tokenizer, line: number): Entry | string {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not an object';
  const conv = (v as Record<string, unknown>)['conversations'] ?? (v as Record<string, unknown>)['conversation'];
  if (!Array.isArray(conv)) return 'no conversations array';
  const turns: ChatMessage[] = [];
  for (const t of conv) {
    const o = t as Record<string, unknown> | null;
    const role = normalizeRole(o?.['from'] ?? o?.['role']);
    const value = o?.['value'] ?? o?.['content'];
    if (!role || typeof value !== 'string') return 'a turn lacks from/value';
    turns.push({ role, content: value });
  }
  const system = turns[0]?.role === 'system' ? turns[0] : null;
  const rest = system ? turns.slice(1) : turns;
  const user = rest[0];
  const reply = rest[1];
  if (!user || user.role !== 'user' || user.content === '') return 'first turn is not a non-empty human turn';
  if (!reply || reply.role !== 'assistant') return 'no reply after the first human turn';
  const messages = system ? [system, user] : null;
  const prompt_tokens = tok.count(user.content) + (system ? tok.count(system.content) : 0);
  return {
    prompt: user.content,
    messages,
    prompt_tokens,
    output_tokens: tok.count(reply.content),
    expected: null,
    task: null,
    conversation: turns,
    line,
  };
}
