/**
 * Shared machinery of file datasets: the parsed entry, the malformed-line report, length filters,
 * sampling (with / without replacement, sequential) and the Workload built from entries.
 */
import { UserError } from '../../errors/user-error.js';
import { lengthSampler, nominalMean } from '../lengths.js';
import type { Rng } from '../rng.js';
import { createRng, shuffle } from '../rng.js';
import type { SubWorkloadSpec } from '../spec.js';
import type { Tokenizer } from '../tokenizer.js';
import type { ChatMessage, WorkItem, Workload } from '../types.js';
import type { TextMaker } from '../synthetic.js';
import { conversationSessions, describeSessions, sessionWorkload } from '../sessions.js';

export interface Entry {
  prompt: string;
  messages: ChatMessage[] | null;
  prompt_tokens: number;
  /** Output length the dataset asks for (its max_tokens or reference completion), if any. */
  output_tokens: number | null;
  expected: string | null;
  task: string | null;
  /** The whole conversation (user and assistant turns) when the source has one; sessions replay it. */
  conversation?: ChatMessage[];
  /** 1-based source line (JSONL line, or the line where a JSON array element starts). */
  line: number;
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

/** Keeps the entries inside the spec's length filters; returns them and how many were dropped. */
export function applyFilters(entries: Entry[], spec: SubWorkloadSpec): { kept: Entry[]; filtered: number } {
  // An entry without an output length is kept by output filters: there is nothing to judge.
  const ok = (v: number | null, lo: number | null, hi: number | null): boolean =>
    v === null || ((lo === null || v >= lo) && (hi === null || v <= hi));
  const kept = entries.filter(
    (e) =>
      ok(e.prompt_tokens, spec.min_input_len, spec.max_input_len) && ok(e.output_tokens, spec.min_output_len, spec.max_output_len),
  );
  return { kept, filtered: entries.length - kept.length };
}

/** An index stream over n entries per `mode`; without-replacement reshuffles after each pass. */
export function indexSampler(n: number, mode: SubWorkloadSpec['sampling'], rng: Rng): () => number {
  if (mode === 'with-replacement') return () => rng.int(0, n - 1);
  const order = Array.from({ length: n }, (_, i) => i);
  let pos = 0;
  if (mode === 'without-replacement') shuffle(rng, order);
  return () => {
    if (pos === n) {
      pos = 0;
      if (mode === 'without-replacement') shuffle(rng, order);
    }
    return order[pos++] as number;
  };
}

export interface DatasetInfo {
  dataset: string;
  path: string;
  tokenizer: Tokenizer;
  maker: TextMaker;
  issues: Issues;
  /** Entries parsed (before filters). */
  parsed: number;
  kind: 'completions' | 'chat';
}

/** A Workload over parsed entries; throws when no usable entry is left. */
export function entriesWorkload(all: Entry[], spec: SubWorkloadSpec, seed: number, info: DatasetInfo): Workload {
  const { kept, filtered } = applyFilters(all, spec);
  if (kept.length === 0) {
    throw new UserError(
      `${info.path}: no usable entry in the ${info.dataset} dataset (${info.issues.skipped} malformed, ${filtered} outside the length filters)` +
        (info.issues.examples[0] ? `; first problem: ${info.issues.examples[0]}` : ''),
    );
  }
  const rng = createRng(`${seed}:${info.dataset}`);
  const pick = indexSampler(kept.length, spec.sampling, rng.fork());
  const datasetOut = kept.map((e) => e.output_tokens).filter((v): v is number => v !== null);
  const outDist = spec.output_len;
  const outSample = outDist ? lengthSampler(outDist, rng.fork(), datasetOut) : null;
  const fallbackOut = spec.random_output_len;
  const describe = (): Record<string, unknown> => ({
    dataset: info.dataset,
    path: info.path,
    tokenizer: info.tokenizer.name,
    token_counts: info.tokenizer.exact ? 'exact' : 'estimate',
    entries: kept.length,
    parsed: info.parsed,
    skipped: info.issues.skipped,
    skipped_examples: info.issues.examples,
    filtered,
    sampling: spec.sampling,
    mean_input_tokens: kept.reduce((s, e) => s + e.prompt_tokens, 0) / kept.length,
    mean_output_tokens: outDist
      ? nominalMean(outDist, datasetOut)
      : datasetOut.length > 0
        ? datasetOut.reduce((a, b) => a + b, 0) / datasetOut.length
        : fallbackOut,
    ...(spec.session_turns ? describeSessions(spec) : {}),
  });
  const countTokens = (text: string): number => info.tokenizer.count(text);
  if (spec.session_turns) {
    const make = conversationSessions(kept, pick, spec, rng.fork(), info.maker, info.kind, outSample);
    return sessionWorkload(make, { skipped: info.issues.skipped, describe, countTokens });
  }
  return {
    skipped: info.issues.skipped,
    next(): WorkItem {
      const e = kept[pick()] as Entry;
      const out = outSample ? Math.max(1, outSample()) : e.output_tokens !== null ? Math.max(1, e.output_tokens) : fallbackOut;
      return {
        prompt: e.prompt,
        messages: e.messages,
        prompt_tokens: e.prompt_tokens,
        max_tokens: out,
        task: e.task,
        expected: e.expected,
        session: null,
        turn: null,
      };
    },
    describe,
    countTokens,
  };
}
