/**
 * Generic JSONL (`--dataset-name jsonl`): one JSON object per line with
 * - the input: `prompt` (string) or `messages` ([{role, content}], chat), also `text`/`question`/`input`;
 * - optional `max_tokens` (or `output_len`, `output_tokens`): requested output length;
 * - optional `expected` (or `answer`, `reference`): expected answer for quality checks;
 * - optional `task` (or `category`): task label;
 * - optional `image` (a path or URL) or `images` (a list): images sent with the prompt (chat;
 *   paths relative to the file, each checked by its magic bytes before the run: media/files.ts);
 * - optional `audio` (a path): an audio clip sent with the prompt (chat's input_audio, or the
 *   transcription kind's upload), checked the same way (media/audio.ts);
 * - optional `check`: the answer check (docs/quality.md); a check that cannot be evaluated stops
 *   the run with `file:line` (exit 2) instead of being skipped; `wrong`: a known-wrong answer.
 * Blank lines and lines starting with `//` are ignored; any other bad line is skipped and reported.
 * A file starting with `[` is read as a JSON array of such objects.
 */
import type { ChatMessage } from '../types.js';
import type { Entry, Issues } from './entries.js';
import { lastUserText, parseMessages } from './entries.js';
import { entryCheck, entryReference } from './check-field.js';
import { eachJson, readBytes } from './sharegpt.js';
import { imageRefs } from '../media/files.js';

const PROMPT_KEYS = ['prompt', 'text', 'question', 'input', 'instruction', 'problem'] as const;
const OUTPUT_KEYS = ['max_tokens', 'output_len', 'output_tokens'] as const;
const EXPECTED_KEYS = ['expected', 'answer', 'reference', 'output', 'response', 'completion', 'solution'] as const;
const TASK_KEYS = ['task', 'category'] as const;

export async function readJsonl(path: string, issues: Issues): Promise<Entry[]> {
  const buf = await readBytes(path, 'workload.dataset_path');
  const out: Entry[] = [];
  eachJson(buf, path, issues, (v, line, index) => {
    let r = objectEntry(v, line);
    const images = typeof r === 'string' ? null : imageRefs(v as Record<string, unknown>);
    if (typeof images === 'string') r = images;
    else if (images !== null && typeof r !== 'string') r = { ...r, images };
    const audio = (v as Record<string, unknown>)['audio'];
    if (audio !== undefined && typeof r !== 'string') r = typeof audio === 'string' && audio !== '' ? { ...r, audio } : 'audio must be a non-empty path string';
    if (typeof r !== 'string') out.push(withCheck(r, v as Record<string, unknown>, `${path}:${line}`));
    else issues.skip(line, index === null ? r : `entry ${index}: ${r}`);
  });
  return out;
}

/** The entry with its declared check (throws a UserError for one that cannot be evaluated). */
function withCheck(e: Entry, o: Record<string, unknown>, where: string): Entry {
  const check = entryCheck(o, where);
  if (check === undefined) return e;
  return { ...e, check, reference: entryReference(o), wrong: typeof o['wrong'] === 'string' ? o['wrong'] : null };
}

/** A record (JSONL line, HF row) → Entry, or why it is malformed. */
export function objectEntry(v: unknown, line: number, promptField: string | null = null): Entry | string {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not a JSON object';
  const o = v as Record<string, unknown>;
  let prompt: string;
  let messages = null;
  let conversation: ChatMessage[] | undefined;
  let reply: string | null = null;
  const listField = promptField ?? (['messages', 'conversations'] as const).find((k) => Array.isArray(o[k])) ?? null;
  if (listField !== null && Array.isArray(o[listField])) {
    const m = parseMessages(o[listField]);
    if (typeof m === 'string') return m;
    conversation = m;
    // A trailing assistant turn is the reference reply (its length = the output length), not input.
    const last = m[m.length - 1] as ChatMessage;
    if (last.role === 'assistant') {
      messages = m.slice(0, -1);
      reply = last.content;
    } else messages = m;
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
    max_tokens: outRaw,
    reply,
    expected: exp === null || exp === undefined ? null : typeof exp === 'string' ? exp : JSON.stringify(exp),
    task,
    ...(conversation ? { conversation } : {}),
    line,
  };
}
