/**
 * Generic JSONL (`--dataset-name jsonl`): one JSON object per line with
 * - the input: `prompt` (string) or `messages` ([{role, content}], chat), also `text`/`question`/`input`;
 * - optional `max_tokens` (or `output_len`, `output_tokens`): requested output length;
 * - optional `expected` (or `answer`, `reference`): expected answer for quality checks;
 * - optional `task` (or `category`): task label.
 * Blank lines and lines starting with `//` are ignored; any other bad line is skipped and reported.
 */
import type { Tokenizer } from '../tokenizer.js';
import type { ChatMessage } from '../types.js';
import type { Entry, Issues } from './entries.js';
import { countInput, lastUserText, parseMessages } from './entries.js';
import { readText } from './sharegpt.js';

const PROMPT_KEYS = ['prompt', 'text', 'question', 'input', 'instruction', 'problem'] as const;
const OUTPUT_KEYS = ['max_tokens', 'output_len', 'output_tokens'] as const;
const EXPECTED_KEYS = ['expected', 'answer', 'reference', 'output', 'response', 'completion', 'solution'] as const;
const TASK_KEYS = ['task', 'category'] as const;

export async function readJsonl(path: string, tok: Tokenizer, issues: Issues): Promise<Entry[]> {
  const text = await readText(path, 'workload.dataset_path');
  const out: Entry[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = (lines[i] as string).trim();
    if (raw === '' || raw.startsWith('//')) continue;
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch (e) {
      issues.skip(i + 1, `invalid JSON (${(e as Error).message})`);
      continue;
    }
    const r = objectEntry(v, tok, i + 1);
    if (typeof r === 'string') issues.skip(i + 1, r);
    else out.push(r);
  }
  return out;
}

/** A record (JSONL line, HF row) → Entry, or why it is malformed. */
export function objectEntry(v: unknown, tok: Tokenizer, line: number, promptField: string | null = null): Entry | string {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not a JSON object';
  const o = v as Record<string, unknown>;
  let prompt: string;
  let messages = null;
  let conversation: ChatMessage[] | undefined;
  const listField = promptField ?? (['messages', 'conversations'] as const).find((k) => Array.isArray(o[k])) ?? null;
  if (listField !== null && Array.isArray(o[listField])) {
    const m = parseMessages(o[listField]);
    if (typeof m === 'string') return m;
    conversation = m;
    // A trailing assistant turn is the reference answer, not input.
    messages = m[m.length - 1]?.role === 'assistant' ? m.slice(0, -1) : m;
    prompt = lastUserText(messages);
  } else {
    const key = promptField ?? PROMPT_KEYS.find((k) => o[k] !== undefined);
    const p = key ? o[key] : undefined;
    if (typeof p !== 'string' || p === '') {
      return promptField ? `field ${JSON.stringify(promptField)} is not a non-empty string` : 'no prompt (prompt, text, question, input, instruction, problem) or messages';
    }
    prompt = p;
  }
  const outKey = OUTPUT_KEYS.find((k) => o[k] !== undefined);
  const outRaw = outKey ? o[outKey] : null;
  if (outRaw !== null && (typeof outRaw !== 'number' || !Number.isInteger(outRaw) || outRaw < 1)) {
    return `${outKey} must be a positive integer`;
  }
  const expKey = EXPECTED_KEYS.find((k) => o[k] !== undefined);
  const exp = expKey ? o[expKey] : null;
  const taskKey = TASK_KEYS.find((k) => o[k] !== undefined);
  const task = taskKey ? o[taskKey] : null;
  if (task !== null && typeof task !== 'string') return `${taskKey} must be a string`;
  return {
    prompt,
    messages,
    prompt_tokens: countInput(tok, prompt, messages),
    output_tokens: outRaw,
    expected: exp === null || exp === undefined ? null : typeof exp === 'string' ? exp : JSON.stringify(exp),
    task,
    ...(conversation ? { conversation } : {}),
    line,
  };
}
