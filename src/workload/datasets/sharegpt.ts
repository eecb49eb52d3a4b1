/**
 * ShareGPT (vLLM's `--dataset-name sharegpt`): a JSON array (or JSONL) of
 * `{ "id": …, "conversations": [{ "from": "human", "value": … }, { "from": "gpt", "value": … }, …] }`.
 * As vLLM: the first human turn is the prompt and the reply after it sets the output length
 * (its token count); a leading system turn is kept in `messages`. Entries without a human turn
 * followed by a reply are malformed. The file is read as bytes and split into array elements,
 * so the ~650 MB ShareGPT_V3 file works (it is longer than a JS string may be).
 */
import { readBounded } from './read-bounded.js';
import { UserError } from '../../errors/user-error.js';
import type { ChatMessage } from '../types.js';
import type { Entry, Issues } from './entries.js';
import { normalizeRole } from './entries.js';
import type { TextPiece } from './json-text.js';
import { JsonShapeError, bufferLines, jsonArrayElements } from './json-text.js';

export interface ReadOptions {
  /** Keep whole conversations (multi-turn sessions replay them); otherwise only the first turn. */
  keepConversation: boolean;
}

export async function readShareGpt(path: string, issues: Issues, opts: ReadOptions): Promise<Entry[]> {
  const buf = await readBytes(path, 'workload.dataset_path');
  const out: Entry[] = [];
  eachJson(buf, path, issues, (v, line, index) => {
    const r = shareGptEntry(v, line, opts.keepConversation);
    if (typeof r !== 'string') out.push(r);
    else issues.skip(line, index === null ? r : `entry ${index}: ${r}`);
  });
  return out;
}

/**
 * Calls `take` with every record of a JSON array file or a JSON Lines file (decided by the first
 * byte), with its line and, for arrays, its index; invalid JSON records are reported and skipped.
 */
export function eachJson(buf: Buffer, path: string, issues: Issues, take: (v: unknown, line: number, index: number | null) => void): void {
  let first = 0;
  while (first < buf.length && (buf[first] === 32 || buf[first] === 10 || buf[first] === 13 || buf[first] === 9 || buf[first] === 0xef || buf[first] === 0xbb || buf[first] === 0xbf)) first++;
  const isArray = buf[first] === 0x5b;
  const pieces: Iterable<TextPiece> = isArray ? jsonArrayElements(buf) : bufferLines(buf);
  let index = 0;
  try {
    for (const { text, line } of pieces) {
      const t = text.trim();
      if (!isArray && (t === '' || t.startsWith('//'))) continue;
      let v: unknown;
      try {
        v = JSON.parse(t);
      } catch (e) {
        issues.skip(line, `${isArray ? `entry ${index}: ` : ''}invalid JSON (${(e as Error).message})`);
        index++;
        continue;
      }
      take(v, line, isArray ? index : null);
      index++;
    }
  } catch (e) {
    if (e instanceof JsonShapeError) throw new UserError(`${path}:${e.line}: workload.dataset_path: invalid JSON: ${e.message}`);
    throw e;
  }
}

export async function readBytes(path: string, field: string): Promise<Buffer> {
  return readBounded(path, field);
}

export async function readText(path: string, field: string): Promise<string> {
  return (await readBytes(path, field)).toString('utf8');
}

/** One ShareGPT conversation → Entry, or the reason it is malformed. */
export function shareGptEntry(v: unknown, line: number, keepConversation = false): Entry | string {
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
    if (!keepConversation && turns.length >= 3) break;
  }
  const system = turns[0]?.role === 'system' ? turns[0] : null;
  const rest = system ? turns.slice(1) : turns;
  const user = rest[0];
  const reply = rest[1];
  if (!user || user.role !== 'user' || user.content === '') return 'first turn is not a non-empty human turn';
  if (!reply || reply.role !== 'assistant') return 'no reply after the first human turn';
  return {
    prompt: user.content,
    messages: system ? [system, user] : null,
    max_tokens: null,
    reply: reply.content,
    expected: null,
    task: null,
    ...(keepConversation ? { conversation: turns } : {}),
    line,
  };
}
