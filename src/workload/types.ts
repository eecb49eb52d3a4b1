/**
 * What the workload hands the runner: one `WorkItem` per request. The consumer (runner/target)
 * decides how to send it; the workload only decides *what* to send.
 */
import type { QualityCheck } from '../quality/check-types.js';
import type { MediaItem } from '../util/media.js';

export type { MediaItem };

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface WorkItem {
  /** Text for /v1/completions; for chat, the final user message text. */
  prompt: string;
  /** Messages for /v1/chat/completions; null → the client wraps `prompt` as one user message. */
  messages: ChatMessage[] | null;
  /** Client-side prompt token count (tokenizer or estimate, see docs/workloads.md). */
  prompt_tokens: number | null;
  /**
   * Embeddings with --batch-size > 1: the batch's inputs (`prompt` is the first, `prompt_tokens`
   * their sum); absent for one input (workload/batch.ts).
   */
  inputs?: string[];
  /** Requested output length: sent as max_tokens (with ignore_eos when asked). */
  max_tokens: number | null;
  /** Task-mix label. */
  task: string | null;
  /** Expected answer for quality checks. */
  expected: string | null;
  /** The answer check this request carries (issue 15, docs/quality.md); absent without one. */
  check?: QualityCheck;
  /** Multi-turn session id and 0-based turn index. */
  session: string | null;
  turn: number | null;
  /** Think time before this turn is sent (ms after the previous turn completed); multi-turn only. */
  think_time_ms?: number;
  /** Shared-prefix block ids when known (traces, prefix groups), for the simulator's prefix cache:
   * one id per block of `prefix_block_tokens` prompt tokens; equal ids = identical block text. */
  prefix_hash_ids?: number[];
  /** Tokens each prefix_hash_ids entry covers: `prefix_block_size` (16), the KV block size. */
  prefix_block_tokens?: number;
  /** Images (and audio) sent with the prompt, as parts of the last user message (chat); absent for text only. */
  media?: MediaItem[];
}

/** A trace item: sent `at_ms` milliseconds after the run start (already time/rate-scaled). */
export interface TimedItem {
  at_ms: number;
  item: WorkItem;
}

/** A multi-turn conversation: turn k+1 is sent `think_time_ms` after turn k completed. */
export interface Session {
  id: string;
  turns: WorkItem[];
}

export interface Workload {
  /** Next request; infinite (datasets cycle or resample per spec); deterministic for the seed.
   * For a session workload: the turns of one session after another. */
  next(): WorkItem;
  /** Multi-turn workloads: the next whole session (a runner's virtual user plays its turns in
   * order, waiting for each reply and then the turn's think time). Shares next()'s sequence. */
  nextSession?(): Session;
  /** Trace replay: every item with its own send time, in time order; next() then returns exactly
   * these items in this order, so a runner sends next()'s i-th item at timed[i].at_ms. */
  readonly timed?: TimedItem[];
  /** Malformed dataset lines skipped while loading. */
  readonly skipped: number;
  /** What its items carry beside text (`image`, `audio`), so a run can refuse a kind that takes none; absent: text only. */
  readonly media?: readonly ('image' | 'audio')[];
  /** For result.json: dataset name, path, counts, expected shared-prefix fraction, … */
  describe(): Record<string, unknown>;
  /** Re-tokenize output text when the server gives no usage. */
  countTokens?(text: string): number;
  /**
   * The longest prompt and output (tokens, as asked) any request can have, without building it,
   * so a run can be checked against the server's context length before it starts; null where
   * unbounded or unknown (file datasets count their entries lazily).
   */
  lengthBounds?(): LengthBounds;
  /** Dataset entries that carry a check, with their known answers (docs/quality.md §Simulator answer mode). */
  answerSources?(): readonly AnswerSource[];
}

/** A prompt with a check and, when the dataset gives them, a correct and a wrong answer text. */
export interface AnswerSource {
  /** The prompt text as sent (for chat: the last user message). */
  prompt: string;
  task: string | null;
  check: QualityCheck;
  reference: string | null;
  wrong: string | null;
}

export interface LengthBounds {
  prompt: number | null;
  output: number | null;
}

export interface WorkloadOptions {
  seed: number;
  endpointKind: 'completions' | 'chat';
  /** Inputs per request (embeddings, --batch-size; workload/batch.ts); default 1. */
  batchSize?: number;
  /** Number of requests the run will send, when known; only used for describe() figures. */
  numPrompts?: number;
  /** Where dataset warnings (malformed lines) go; default: stderr. */
  warn?: (message: string) => void;
  /**
   * Server tokens per estimated token, measured by pre-flight (client/prompt-calibration.ts):
   * without a tokenizer, prompts are sized and counted with the estimate scaled by it. Default 1.
   */
  tokenScale?: number;
  /**
   * Build no prompt text for synthetic datasets (random, prefix, trace): prompts are empty, and
   * every length, prefix id and draw is what it would be with text (text has its own random
   * stream). For the virtual-time driver, which needs token counts only.
   */
  lengthsOnly?: boolean;
}
