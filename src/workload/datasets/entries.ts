/**
 * Shared parts of file datasets: the parsed entry, the malformed-line report and message parsing.
 * Entries are parsed eagerly (so malformed lines are reported before the run) but counted in
 * tokens lazily, on first draw (pool.ts): a real tokenizer is slow next to parsing
 * (docs/performance.md §Tokenizer cost), and a ShareGPT file has ~90k conversations of which a run uses a few
 * hundred.
 */
import type { QualityCheck } from '../../quality/check-types.js';
import type { Tokenizer } from '../tokenizer.js';
import type { ChatMessage } from '../types.js';

export interface Entry {
  prompt: string;
  messages: ChatMessage[] | null;
  /** Output length the entry asks for explicitly (its max_tokens field), if any. */
  max_tokens: number | null;
  /** The reference reply; its token count is the output length when max_tokens is null. */
  reply: string | null;
  expected: string | null;
  task: string | null;
  /** The whole conversation (user and assistant turns) when the source has one; sessions replay it. */
  conversation?: ChatMessage[];
  /** 1-based source line (JSONL line, or the line where a JSON array element starts). */
  line: number;
  /** The answer check the entry declares (check-field.ts, docs/quality.md). */
  check?: QualityCheck;
  /** A known-correct answer text, and a known-wrong one, for the simulator's answer mode. */
  reference?: string | null;
  wrong?: string | null;
  /** Images the entry sends (JSONL `image`/`images`): paths resolved against the dataset file, or URLs (media/files.ts). */
  images?: string[];
  /** An audio clip the entry sends (JSONL `audio`): a path resolved against the dataset file (media/audio.ts). */
  audio?: string;
}

/** Collects malformed lines: each reported once as `file:line: reason`. */
export class Issues {
  readonly examples: string[] = [];
  skipped = 0;
  constructor(
    /** The file being read; set anew when a dataset spans several files. */
    public file: string,
    private readonly warn: (msg: string) => void,
  ) {}
  skip(line: number, reason: string): void {
    this.skipped++;
    const msg = `${this.file}:${line}: skipped: ${reason}`;
    if (this.examples.length < 5) this.examples.push(msg);
    if (this.skipped <= 20) this.warn(msg);
    else if (this.skipped === 21) this.warn(`${this.file}: more malformed lines skipped (count in result)`);
  }
}

export function defaultWarn(msg: string): void {
  process.stderr.write(`warning: ${msg}\n`);
}

/** Counts tokens of an entry's input: the prompt, or every message's content. */
export function countInput(tok: Tokenizer, prompt: string, messages: ChatMessage[] | null): number {
  if (!messages) return tok.count(prompt);
  let n = 0;
  for (const m of messages) n += tok.count(m.content);
  return n;
}

/** Parses a `messages` array; returns a reason string when malformed. */
export function parseMessages(v: unknown): ChatMessage[] | string {
  if (!Array.isArray(v) || v.length === 0) return 'messages must be a non-empty array';
  const out: ChatMessage[] = [];
  for (const [i, m] of v.entries()) {
    const o = m as Record<string, unknown> | null;
    const role = o?.['role'] ?? o?.['from'];
    const content = o?.['content'] ?? o?.['value'];
    const r = normalizeRole(role);
    if (!r) return `messages[${i}].role must be system, user or assistant`;
    if (typeof content !== 'string') return `messages[${i}].content must be a string`;
    out.push({ role: r, content });
  }
  if (!out.some((m) => m.role === 'user')) return 'messages has no user message';
  return out;
}

export function normalizeRole(role: unknown): ChatMessage['role'] | null {
  switch (role) {
    case 'system':
      return 'system';
    case 'user':
    case 'human':
      return 'user';
    case 'assistant':
    case 'gpt':
    case 'bot':
    case 'model':
      return 'assistant';
    default:
      return null;
  }
}

export function lastUserText(messages: ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === 'user') return messages[i]!.content;
  return '';
}
