/**
 * CLI flags of the workload, named as vLLM's `bench serve` names them where the concept is the
 * same. Flags carry no defaults (the schema does), so a flag given overrides the spec file and a
 * flag not given leaves it alone.
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import { UserError } from '../errors/user-error.js';
import type { LengthDist, WorkloadSpec } from './spec.js';
import { DATASET_NAMES } from './dataset-names.js';
import { parseBucketConfig, parseMmLimit } from './media/random-mm.js';

type Kind = 'string' | 'int' | 'number' | 'dist' | 'mm-buckets' | 'mm-limit';

/** flag → [spec field, value kind, help]. */
export const WORKLOAD_FLAGS: ReadonlyArray<readonly [flag: string, field: keyof WorkloadSpec, kind: Kind, help: string]> = [
  ['--dataset-name <name>', 'dataset_name', 'string', `dataset: ${DATASET_NAMES.join('|')} (default random; prefix_repetition = prefix)`],
  ['--dataset-path <path>', 'dataset_path', 'string', 'dataset file (sharegpt JSON, JSONL, trace), a folder of images (images) or audio files (audio), or HF dataset id/path'],
  ['--tokenizer <name-or-path>', 'tokenizer', 'string', 'tokenizer.json path/dir, llama3|qwen3|cl100k_base|o200k_base…, or HF id (online); default: estimate'],
  ['--random-input-len <n>', 'random_input_len', 'int', 'random dataset: input tokens (default 1024)'],
  ['--random-output-len <n>', 'random_output_len', 'int', 'random dataset: output tokens / max_tokens (default 128)'],
  ['--random-range-ratio <r>', 'random_range_ratio', 'number', 'lengths uniform on [X(1-r), X(1+r)], 0 <= r < 1 (default 0)'],
  ['--random-prefix-len <n>', 'random_prefix_len', 'int', 'tokens of a prefix shared by every request, before the input (default 0)'],
  ['--input-len <dist>', 'input_len', 'dist', 'input length distribution: N | uniform:MIN-MAX | normal:mean=M,std=S[,min=,max=] | lognormal:… | empirical:path=F'],
  ['--output-len <dist>', 'output_len', 'dist', 'output length distribution (same forms as --input-len)'],
  ['--sharegpt-output-len <n>', 'output_len', 'dist', 'fixed output length for dataset requests (vLLM flag; = --output-len N)'],
  ['--sampling <mode>', 'sampling', 'string', 'dataset draws: without-replacement|with-replacement|sequential'],
  ['--min-input-len <n>', 'min_input_len', 'int', 'drop dataset entries with fewer input tokens'],
  ['--max-input-len <n>', 'max_input_len', 'int', 'drop dataset entries with more input tokens'],
  ['--min-output-len <n>', 'min_output_len', 'int', 'drop dataset entries with fewer output tokens'],
  ['--max-output-len <n>', 'max_output_len', 'int', 'drop dataset entries with more output tokens'],
  ['--max-total-len <n>', 'max_total_len', 'int', 'drop dataset entries with more input + output tokens'],
  ['--prefix-num-groups <g>', 'prefix_num_groups', 'int', 'prefix dataset: number of distinct shared prefixes (default 8)'],
  ['--prefix-len <p>', 'prefix_len', 'int', 'prefix dataset: tokens per shared prefix (default 512)'],
  ['--prefix-mode <mode>', 'prefix_mode', 'string', 'prefix dataset: random|round-robin|repeat'],
  ['--prefix-repeat <k>', 'prefix_repeat', 'int', 'prefix repeat mode: consecutive requests per prefix (default 4)'],
  ['--prefix-repetition-num-prefixes <g>', 'prefix_num_groups', 'int', 'vLLM name of --prefix-num-groups'],
  ['--prefix-repetition-prefix-len <p>', 'prefix_len', 'int', 'vLLM name of --prefix-len'],
  ['--prefix-repetition-suffix-len <n>', 'random_input_len', 'int', 'vLLM: suffix tokens (= --random-input-len for the prefix dataset)'],
  ['--prefix-repetition-output-len <n>', 'random_output_len', 'int', 'vLLM: output tokens (= --random-output-len)'],
  ['--trace-format <fmt>', 'trace_format', 'string', 'trace dataset: auto|mooncake|azure'],
  ['--trace-time-scale <x>', 'trace_time_scale', 'number', 'multiply trace timestamps (2 = twice as slow)'],
  ['--trace-rate-scale <x>', 'trace_rate_scale', 'number', 'multiply trace arrival rate (2 = twice as fast)'],
  ['--trace-block-size <n>', 'trace_block_size', 'int', 'tokens per Mooncake hash block (default 512)'],
  ['--prefix-block-size <n>', 'prefix_block_size', 'int', 'tokens per emitted prefix_hash_ids block, the KV block size (default 16)'],
  ['--hf-subset <name>', 'hf_subset', 'string', 'HF dataset subset (config)'],
  ['--hf-split <name>', 'hf_split', 'string', 'HF dataset split (default train)'],
  ['--hf-prompt-field <name>', 'hf_prompt_field', 'string', 'HF dataset column with the prompt (default: auto)'],
  ['--hf-output-len <n>', 'output_len', 'dist', 'vLLM: fixed output length for HF dataset requests'],
  ['--session-turns <dist>', 'session_turns', 'dist', 'multi-turn: turns per session (distribution)'],
  ['--think-time <dist>', 'think_time_ms', 'dist', 'multi-turn: think time between turns in ms (distribution)'],
  ['--system-prompt-len <n>', 'system_prompt_len', 'int', 'chat: tokens of a system message in every request'],
  ['--random-mm-base-items-per-request <n>', 'random_mm_base_items_per_request', 'int', 'random-mm, images: images per request (default 1)'],
  ['--random-mm-num-mm-items-range-ratio <r>', 'random_mm_num_mm_items_range_ratio', 'number', 'random-mm: images per request uniform on [n(1-r), n(1+r)], 0 <= r <= 1 (default 0)'],
  ['--random-mm-limit-mm-per-prompt <json>', 'random_mm_limit_mm_per_prompt', 'mm-limit', 'random-mm: most items per request by modality, e.g. \'{"image": 3, "video": 0}\''],
  ['--random-mm-bucket-config <dict>', 'random_mm_bucket_config', 'mm-buckets', 'random-mm: image sizes, \'{(HEIGHT, WIDTH, 1): P, …}\' (default {(256, 256, 1): 0.5, (720, 1280, 1): 0.5})'],
  ['--audio-duration-ms <dist>', 'audio_duration_ms', 'dist', 'random-audio: clip duration in ms, a distribution as --input-len (default 5000)'],
  ['--prompt-salt <s>', 'prompt_salt', 'string', 'changes the words of synthetic prompts; default: fresh per run against a server (see spec.json); "" = none, to replay a --seed exactly'],
];

function attrName(flag: string): string {
  const long = flag.split(' ')[0] as string;
  return long.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

export function registerWorkloadOptions(cmd: Command): Command {
  for (const [flag, , , help] of WORKLOAD_FLAGS) cmd.addOption(new Option(flag, help));
  return cmd;
}

export function workloadSpecFromFlags(opts: Record<string, unknown>): Partial<WorkloadSpec> {
  const out: Record<string, unknown> = {};
  for (const [flag, field, kind] of WORKLOAD_FLAGS) {
    const raw = opts[attrName(flag)];
    if (raw === undefined || raw === null) continue;
    const name = flag.split(' ')[0] as string;
    const text = String(raw);
    switch (kind) {
      case 'string':
        out[field] = field === 'dataset_name' && text === 'prefix_repetition' ? 'prefix' : text;
        break;
      case 'int':
        out[field] = parseIntFlag(name, text);
        break;
      case 'number':
        out[field] = parseNumberFlag(name, text);
        break;
      case 'dist':
        out[field] = parseLengthDist(text, name);
        break;
      case 'mm-buckets':
        out[field] = parseBucketConfig(text, name);
        break;
      case 'mm-limit':
        out[field] = parseMmLimit(text, name);
        break;
    }
  }
  return out as Partial<WorkloadSpec>;
}

function parseIntFlag(name: string, text: string): number {
  if (!/^\d+$/.test(text.trim())) throw new UserError(`${name}: expected a non-negative integer, got ${JSON.stringify(text)}`);
  return Number(text);
}

function parseNumberFlag(name: string, text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n)) throw new UserError(`${name}: expected a number, got ${JSON.stringify(text)}`);
  return n;
}

/**
 * Parses the compact distribution syntax: `512` (fixed), `fixed:512`, `uniform:100-1000`,
 * `uniform:min=100,max=1000`, `normal:mean=512,std=128,min=1,max=2048`, `lognormal:mean=…,std=…`; any form takes `seed=N`;
 * `empirical:path=FILE[,min=…,max=…]`, `empirical:dataset`.
 */
export function parseLengthDist(text: string, name = 'length'): LengthDist {
  const t = text.trim();
  const bad = (why: string): UserError =>
    new UserError(`${name}: ${why} in ${JSON.stringify(text)} (forms: N | uniform:MIN-MAX | normal:mean=M,std=S[,min=A,max=B] | lognormal:mean=M,std=S | empirical:path=FILE)`);
  if (/^\d+$/.test(t)) return { kind: 'fixed', value: Number(t) };
  const colon = t.indexOf(':');
  const kind = colon < 0 ? t : t.slice(0, colon);
  const rest = colon < 0 ? '' : t.slice(colon + 1);
  const params: Record<string, string> = {};
  for (const part of rest.split(',').filter((p) => p !== '')) {
    const eq = part.indexOf('=');
    if (eq < 0) params[''] = part;
    else params[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  const num = (k: string, required: boolean): number | undefined => {
    const v = params[k];
    if (v === undefined) {
      if (required) throw bad(`missing ${k}=`);
      return undefined;
    }
    const n = Number(v);
    if (v === '' || !Number.isFinite(n) || n < 0) throw bad(`${k} must be a non-negative number`);
    return n;
  };
  const seeded = (): { seed?: number } => {
    const v = num('seed', false);
    return v === undefined ? {} : { seed: Math.round(v) };
  };
  const bounds = (): { min?: number; max?: number; seed?: number } => {
    const r: { min?: number; max?: number; seed?: number } = seeded();
    const min = num('min', false);
    const max = num('max', false);
    if (min !== undefined) r.min = Math.round(min);
    if (max !== undefined) r.max = Math.round(max);
    return r;
  };
  switch (kind) {
    case 'fixed':
      return {
        kind: 'fixed',
        value: Math.round(params['value'] !== undefined ? (num('value', true) as number) : (numeric(params[''], bad) ?? 0)),
        ...seeded(),
      };
    case 'uniform': {
      const range = params[''];
      if (range !== undefined) {
        const m = /^(\d+)-(\d+)$/.exec(range);
        if (!m) throw bad('expected MIN-MAX');
        return { kind: 'uniform', min: Number(m[1]), max: Number(m[2]), ...seeded() };
      }
      return { kind: 'uniform', min: Math.round(num('min', true) as number), max: Math.round(num('max', true) as number), ...seeded() };
    }
    case 'normal':
    case 'lognormal':
      return { kind, mean: num('mean', true) as number, std: num('std', true) as number, ...bounds() };
    case 'empirical': {
      if (params[''] === 'dataset') return { kind: 'empirical', from_dataset: true, ...bounds() };
      const path = params['path'] ?? params[''];
      if (path === undefined || path === '') throw bad('missing path=');
      return { kind: 'empirical', path, ...bounds() };
    }
    default:
      throw bad(`unknown distribution ${JSON.stringify(kind)}`);
  }
}

function numeric(v: string | undefined, bad: (why: string) => UserError): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw bad('expected an integer');
  return Number(v);
}
