/**
 * The `workload` section of the run spec (one zod schema). Field names follow vLLM's
 * `bench serve` flags where the concept is the same (`random_input_len` ↔ `--random-input-len`).
 * Every field is documented in docs/workloads.md.
 */
import { z } from 'zod';
import { DATASET_NAMES } from './dataset-names.js';

/**
 * No length (tokens) above this is accepted: longer than any context served today, and text of
 * that many words is still a string V8 can hold (about 6 characters per word; its limit is ~2^29).
 * Longer asks would fail mid-run building the prompt; shorter ones are checked against the
 * server's own context length by pre-flight.
 */
export const MAX_TOKENS_ASKED = 10_000_000;
const tooLong = `at most ${MAX_TOKENS_ASKED.toLocaleString('en-US')} tokens (longer than any served context)`;
const positiveInt = z.number().int().min(1).max(MAX_TOKENS_ASKED, tooLong);
const nonNegInt = z.number().int().min(0).max(MAX_TOKENS_ASKED, tooLong);

/** Own seed of a distribution; without it, draws come from the run seed's stream. */
const seed = z.number().int().optional();

/** A length distribution in tokens; samples are rounded and clipped to [min, max]. */
export const LengthDistSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('fixed'), value: nonNegInt, seed }).strict(),
  z
    .object({ kind: z.literal('uniform'), min: nonNegInt, max: nonNegInt, seed })
    .strict()
    .refine((d) => d.min <= d.max, { message: 'uniform: min must be ≤ max', path: ['max'] }),
  z
    .object({
      kind: z.literal('normal'),
      mean: z.number().min(0).max(MAX_TOKENS_ASKED, tooLong),
      std: z.number().min(0),
      min: nonNegInt.optional(),
      max: nonNegInt.optional(),
      seed,
    })
    .strict(),
  z
    .object({
      kind: z.literal('lognormal'),
      /** Mean and standard deviation of the lengths themselves (not of their logarithm). */
      mean: z.number().positive().max(MAX_TOKENS_ASKED, tooLong),
      std: z.number().min(0),
      min: nonNegInt.optional(),
      max: nonNegInt.optional(),
      seed,
    })
    .strict(),
  z
    .object({
      kind: z.literal('empirical'),
      /** Lengths to resample from: inline, a file (numbers separated by whitespace/commas, or a
       * one-column CSV/JSONL), or `"dataset"` = the lengths of the selected dataset. */
      values: z.array(nonNegInt).min(1).optional(),
      path: z.string().min(1).optional(),
      from_dataset: z.boolean().optional(),
      min: nonNegInt.optional(),
      max: nonNegInt.optional(),
      seed,
    })
    .strict(),
]);
export type LengthDist = z.infer<typeof LengthDistSchema>;

export { DATASET_NAMES, type DatasetName } from './dataset-names.js';

const baseShape = {
  /** Which generator or dataset (vLLM `--dataset-name`). */
  // vLLM's name for the prefix dataset is accepted in spec files too, as it is on the command line.
  dataset_name: z.preprocess((v) => (v === 'prefix_repetition' ? 'prefix' : v), z.enum(DATASET_NAMES)).default('random'),
  /** File (or hub id for `hf`) the dataset is read from (vLLM `--dataset-path`). */
  dataset_path: z.string().min(1).nullable().default(null),
  /** Tokenizer: local tokenizer.json path or directory, a bundled name (llama3, qwen3, cl100k_base,
   * o200k_base, …) or a hub id when online; null → the tokenizer-free estimate. */
  tokenizer: z.string().min(1).nullable().default(null),

  /** vLLM random dataset: input length X, output length Y, range ratio r → uniform on
   * [⌊X(1−r)⌋, ⌈X(1+r)⌉]; prefix_len tokens shared by every request, before the input. */
  random_input_len: nonNegInt.default(1024),
  random_output_len: positiveInt.default(128),
  random_range_ratio: z.number().min(0).lt(1).default(0),
  random_prefix_len: nonNegInt.default(0),

  /** Distributions overriding the random_* lengths (input: synthetic datasets; output: all). */
  input_len: LengthDistSchema.nullable().default(null),
  output_len: LengthDistSchema.nullable().default(null),

  /** How dataset entries are drawn: shuffled without replacement (reshuffled each pass), with
   * replacement, or in file order. */
  sampling: z.enum(['without-replacement', 'with-replacement', 'sequential']).default('without-replacement'),
  /** Length filters on dataset entries (tokens, inclusive); entries outside are dropped. */
  min_input_len: nonNegInt.nullable().default(null),
  max_input_len: nonNegInt.nullable().default(null),
  min_output_len: nonNegInt.nullable().default(null),
  max_output_len: nonNegInt.nullable().default(null),
  /** Drop entries whose input + output tokens exceed this (vLLM's ShareGPT uses 2048). */
  max_total_len: nonNegInt.nullable().default(null),

  /** Prefix dataset: G groups, each with its own P-token prefix; suffixes are distinct per
   * request (length: input_len distribution, else random_input_len/range_ratio). */
  prefix_num_groups: positiveInt.default(8),
  prefix_len: nonNegInt.default(512),
  /** random: each request picks a group uniformly; round-robin: groups in turn; repeat: each
   * prefix is used for `prefix_repeat` consecutive requests, then the next (repetition mode). */
  prefix_mode: z.enum(['random', 'round-robin', 'repeat']).default('random'),
  prefix_repeat: positiveInt.default(4),

  /** Trace replay. `trace_time_scale` multiplies every timestamp (2 → twice as slow);
   * `trace_rate_scale` multiplies the arrival rate (2 → twice as fast). Both apply. */
  trace_format: z.enum(['auto', 'mooncake', 'azure']).default('auto'),
  trace_time_scale: z.number().positive().default(1),
  trace_rate_scale: z.number().positive().default(1),
  /** Tokens per Mooncake hash block (the trace's block size). */
  trace_block_size: positiveInt.default(512),
  /** Tokens per id of the emitted `prefix_hash_ids` (the engine's KV block size; vLLM's is 16). */
  prefix_block_size: positiveInt.default(16),

  /** Hugging Face dataset: subset (config), split, and the column holding the prompt. */
  hf_subset: z.string().min(1).nullable().default(null),
  hf_split: z.string().min(1).default('train'),
  hf_prompt_field: z.string().min(1).nullable().default(null),

  /** Multi-turn sessions (chat): turns per session and think time between turns (ms). The
   * input length applies to each new user message. */
  session_turns: LengthDistSchema.refine((d) => (d.kind === 'fixed' ? d.value : d.kind === 'uniform' ? d.min : (d.min ?? 1)) >= 1, {
    message: 'a session has at least 1 turn (give 1 or more; the smallest length must be ≥ 1)',
  })
    .nullable()
    .default(null),
  think_time_ms: LengthDistSchema.nullable().default(null),
  /** System prompt put first in every chat request's messages (tokens from the random words). */
  system_prompt_len: nonNegInt.default(0),
  /** Mixed into the words of synthetic prompts (not their lengths, nor the schedule), so a
   * repeated run does not replay prompts a server's prefix cache still holds. null: `run`
   * against a server draws a fresh one per run and records it in spec.json; "" = none. */
  prompt_salt: z.string().nullable().default(null),

  /** random-mm (vLLM's random multimodal dataset) and images (a folder): images per request n,
   * drawn uniform on [⌊n(1−r)⌋, ⌈n(1+r)⌉] with r the range ratio, capped by the per-modality
   * limits; image sizes drawn from buckets (height, width, frames) by probability. Optional with
   * no default, so a text spec's hash does not change (defaults: workload/media/random-mm.ts). */
  random_mm_base_items_per_request: z.number().int().min(0).max(255).optional(),
  random_mm_num_mm_items_range_ratio: z.number().min(0).max(1).optional(),
  random_mm_limit_mm_per_prompt: z.record(z.string(), z.number().int().min(0)).optional(),
  random_mm_bucket_config: z
    .array(z.object({ height: z.number().int().min(1), width: z.number().int().min(1), num_frames: z.number().int().min(1), probability: z.number().min(0) }).strict())
    .min(1)
    .optional(),
  /** random-audio: each clip's duration in ms (a length distribution; default 5000). */
  audio_duration_ms: LengthDistSchema.optional(),
};

const SubWorkloadSchema = z.object(baseShape).strict();

type BaseShape = typeof baseShape;
/** The same fields without defaults: a task inherits every field it does not set. */
const inheritShape = Object.fromEntries(Object.entries(baseShape).map(([k, v]) => [k, (v as { unwrap(): z.ZodTypeAny }).unwrap().optional()])) as {
  [K in keyof BaseShape]: z.ZodOptional<ReturnType<BaseShape[K]['unwrap']>>;
};

/** One named sub-workload of a task mix; unset fields come from the enclosing workload. */
export const TaskSchema = z
  .object({
    name: z.string().min(1),
    weight: z.number().positive(),
    ...inheritShape,
  })
  .strict();
export type TaskSpec = z.infer<typeof TaskSchema>;

export const WorkloadSpecSchema = SubWorkloadSchema.extend({
  /** A weighted mix of named sub-workloads; when set, each request picks a task by weight
   * (weights are relative) and carries the task's name. */
  tasks: z
    .array(TaskSchema)
    .min(1)
    .refine((ts) => new Set(ts.map((t) => t.name)).size === ts.length, { message: 'task names must be unique' })
    .nullable()
    .default(null),
}).strict();

export type WorkloadSpec = z.infer<typeof WorkloadSpecSchema>;
/** What a single (non-mixed) workload is built from. */
export type SubWorkloadSpec = z.infer<typeof SubWorkloadSchema>;

/** The spec with every default filled in. */
export function defaultWorkloadSpec(): WorkloadSpec {
  return WorkloadSpecSchema.parse({});
}
