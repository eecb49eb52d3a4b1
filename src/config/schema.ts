/**
 * The run spec: one zod schema for everything a run needs. A YAML/JSON file and CLI flags
 * are merged into one object and validated here (see load-spec.ts). Field names are
 * snake_case; durations accept units (`500ms`, `10s`, `2m`); rates accept `inf`.
 */
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { parseCountOrDuration, parseDurationMs, parseFraction, parseRate, UnitError } from './units.js';
import { GOODPUT_METRICS, parseGoodputSlo } from './slo.js';
import { CostSpecSchema } from './prices.js';
import { ObserveSpecSchema } from './observe-spec.js';
import { ENGINE_PRESET_NAMES, loadSimProfile } from './sim-profile.js';
import { UserError } from '../errors/user-error.js';
import { unwritableReason } from '../util/writable-path.js';

/** A list given as an array or as one comma-separated string (as vLLM's flags take it). */
function commaList<O>(item: z.ZodType<O, unknown>, example: string) {
  return z.union([z.string(), z.array(z.union([z.string(), z.number()]))]).transform((v, ctx): O[] => {
    const parts = typeof v === 'string' ? v.split(',').map((x) => x.trim()).filter((x) => x !== '') : v;
    if (parts.length === 0) {
      ctx.addIssue({ code: 'custom', message: `give at least one, e.g. ${example}` });
      return z.NEVER;
    }
    const out: O[] = [];
    for (const part of parts) {
      const r = item.safeParse(part);
      if (!r.success) {
        ctx.addIssue({ code: 'custom', message: `"${part}": ${r.error.issues[0]?.message ?? 'invalid'} (e.g. ${example})` });
        return z.NEVER;
      }
      out.push(r.data);
    }
    return out;
  });
}

function unit<T>(parse: (v: string | number) => T, description: string) {
  return z
    .union([z.string(), z.number()])
    .describe(description)
    .transform((v, ctx): T => {
      try {
        return parse(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: err instanceof UnitError ? err.message : String(err) });
        return z.NEVER;
      }
    });
}

const durationMs = (bare: 'ms' | 's', description: string) => unit((v) => parseDurationMs(v, bare), description);
const countOrDuration = (description: string) => unit(parseCountOrDuration, description);

/**
 * --workers beyond this many per core is refused: a sending thread needs a core to keep its
 * timestamps, so more only queue for the same cores, and each holds its own V8 heap (1,000 of them
 * took 9 GB and never started).
 */
export const WORKERS_PER_CORE = 4;
export const maxWorkers = (): number => WORKERS_PER_CORE * availableParallelism();

export const TargetSpecSchema = z
  .object({
    base_url: z.string().url().nullable().default(null).describe('Server root, e.g. http://localhost:8000. Null: the built-in simulated engine.'),
    endpoint: z.string().startsWith('/').default('/v1/completions').describe('API path: /v1/completions, /v1/chat/completions, /v1/embeddings, /v1/responses or /v1/messages (the --endpoint-type default when only that is given).'),
    endpoint_type: z
      .string()
      .min(1)
      .optional()
      .describe("The API the endpoint speaks (docs/endpoints.md): completions, chat, embeddings, responses, anthropic, tgi, sglang, sglang-incremental, triton, triton-cumulative, a plugin's kind, or vLLM's --backend names (openai, openai-chat, openai-embeddings). Absent: the one the path names."),
    model: z.string().min(1).nullable().default(null).describe('Model id; null takes the first from /v1/models.'),
    api_key_env: z.string().default('OPENAI_API_KEY').describe('Environment variable holding the API key (the key itself is never stored).'),
    stream: z.boolean().default(true),
    ignore_eos: z.boolean().nullable().default(null).describe('Send ignore_eos so the server produces exactly max_tokens (vLLM, SGLang, llama.cpp); null: as vLLM bench serve, on for the random dataset only (and always to the built-in simulator).'),
    extra_body: z.record(z.string(), z.unknown()).default({}).describe('Extra JSON fields merged into every request body.'),
    headers: z
      .record(
        z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'expected a header name: letters, digits and !#$%&\'*+-.^_`|~ only (no spaces, ":" or "=")'),
        z.string().refine((v) => !/[\r\n\0]/.test(v), 'a header value cannot hold a line break (CR, LF) or NUL: it would end the header'),
      )
      .default({})
      .describe('Extra HTTP headers sent with every request (--header).'),
    timeout_ms: durationMs('s', 'Per-request timeout (bare number: seconds).')
      .refine((ms) => ms > 0, 'expected a timeout longer than 0, e.g. 60s (a request cannot finish in no time)')
      .default(600_000),
    stall_timeout_ms: durationMs('s', 'A response that has begun but sends no byte for this long ends as `stalled` (bare number: seconds; 0: off).')
      .refine((ms) => ms >= 0, 'expected a duration of 0 (off) or more, e.g. 60s')
      .default(60_000),
    retries: z.number().int().min(0).max(10).default(0).describe('Send a request again, up to this many times, when it failed before any output with 429, 5xx or a refused connection (Retry-After honoured, else exponential backoff from 0.5 s, at most 30 s).'),
    preflight: z.boolean().default(true),
    tls_insecure: z.boolean().default(false).describe('Skip TLS certificate verification (self-signed endpoints).'),
  })
  .strict();

export const LoadSpecSchema = z
  .object({
    request_rate: unit(parseRate, 'Open-loop arrival rate in requests/s, or inf (all at once).').default(Infinity),
    burstiness: z.number().positive().default(1).describe('Gamma shape: 1 = Poisson, <1 burstier, >1 more regular.'),
    arrival: z.enum(['poisson', 'gamma', 'constant']).nullable().default(null).describe('Inter-arrival distribution; null: poisson, or gamma when burstiness ≠ 1.'),
    max_concurrency: z.number().int().positive().nullable().default(null).describe('Open loop: cap on requests in flight; waits are counted as late.'),
    concurrency: z.number().int().positive().nullable().default(null).describe('Closed loop: exactly N requests always in flight.'),
    batch_size: z.number().int().positive().optional().describe('Embeddings: inputs per request (absent: 1); the inputs are consecutive workload items.'),
    num_prompts: z.number().int().positive().nullable().default(null).describe('Requests to send (default 1000 when no duration is given).'),
    duration_ms: durationMs('s', 'Stop sending after this long (bare number: seconds).').nullable().default(null),
    ramp_up_ms: durationMs('s', 'Ramp-up: the rate (or concurrency) rises linearly from zero to its target over this long; excluded from figures (bare number: seconds).').default(0),
    ramp_down_ms: durationMs('s', 'Ramp-down: the load falls linearly to zero over the last part of --duration; excluded from figures (bare number: seconds).').default(0),
    warmup: countOrDuration('Excluded from figures at the start: a request count or a duration.').prefault(0),
    cooldown: countOrDuration('Excluded from figures at the end: a request count or a duration.').prefault(0),
    grace_ms: durationMs('s', 'After --duration, how long in-flight requests may finish before they are cancelled.').default(30_000),
    seed: z.number().int().default(0),
    workers: z
      .number()
      .int()
      .nonnegative()
      .refine((n) => n <= maxWorkers(), { error: () => `at most ${maxWorkers()} worker threads on this machine (${WORKERS_PER_CORE} per core, ${availableParallelism()} cores): more only compete for the same cores, and each holds its own heap` })
      .nullable()
      .default(null)
      .describe(`Worker threads sending the load (null: available cores − 1, at least 1; 0: the main thread; at most ${WORKERS_PER_CORE} per core).`),
    preconnect: z.number().int().nonnegative().nullable().default(null).describe('Connections opened before t = 0, split across workers (null: the concurrency cap, else about one second of arrivals, at most 256; never more than the run has requests; 0: none).'),
    busy_poll: z.boolean().default(false).describe('Keep each sending thread polling instead of sleeping: chunks are timestamped without the OS wake-up delay; costs a full core per worker.'),
  })
  .strict();

export const OutputSpecSchema = z
  .object({
    result_dir: z.string().default('results'),
    save: z.boolean().default(true).describe('Write the run directory (spec.json, result.json, records.jsonl).'),
    report: z.boolean().default(true).describe('Write report.html (the self-contained HTML report) into the run directory.'),
    vllm_json: z.string().nullable().default(null).describe('Also write the figures under vLLM bench serve --save-result keys.'),
    percentile_metrics: commaList(z.enum(['ttft', 'tpot', 'itl', 'e2el']), 'ttft,tpot,itl,e2el').nullable().default(null).describe('vLLM JSON: metrics with percentile keys (vLLM --percentile-metrics).'),
    metric_percentiles: commaList(
      z.union([z.string(), z.number()]).transform((v, ctx): number => {
        // A decimal number as Python's float() reads it (no hex, no "Infinity").
        const p = typeof v === 'number' ? v : /^\s*[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i.test(v) ? Number(v) : NaN;
        if (!(p > 0 && p < 100)) {
          ctx.addIssue({ code: 'custom', message: 'a percentile is a number greater than 0 and less than 100' });
          return z.NEVER;
        }
        return p;
      }),
      '25,75,99.99',
    )
      // vLLM computes each one as given; here a repeated one is one key anyway: once, ascending.
      .transform((ps) => [...new Set(ps)].sort((a, b) => a - b))
      .nullable()
      .default(null)
      .describe('Percentiles to compute exactly beside p50…p99.9 (vLLM --metric-percentiles; any numbers 0 < p < 100): result.json latency.*.percentiles, the summary and the vLLM JSON keys.'),
    label: z.string().nullable().default(null).describe('vLLM JSON: the label field (vLLM --label).'),
    junit: z
      .string()
      .nullable()
      .default(null)
      .superRefine((p, ctx) => {
        const why = p === null ? null : unwritableReason(p);
        if (why) ctx.addIssue({ code: 'custom', message: `${p}: ${why}` });
      })
      .describe('Also write the gates (validity, each SLO) as JUnit XML to this file.'),
    keep_text: z.boolean().default(false),
    json: z.boolean().default(false).describe('Print result.json to stdout instead of the table.'),
    progress: z.enum(['auto', 'bar', 'lines', 'none']).default('auto'),
  })
  .strict();

/**
 * Default --max-failure-rate. A CI job against a real endpoint should not fail on a transient
 * blip (a 429 burst, one dropped stream in a few hundred), but should fail when the service is
 * broken or when so many requests failed that the latencies describe only the survivors.
 */
export const DEFAULT_MAX_FAILURE_RATE = 0.05;

/** When a run is invalid, and whether that fails the command (exit 5). */
export const ValiditySpecSchema = z
  .object({
    max_failure_rate: unit(parseFraction, 'Largest share of measured requests that may fail (error, timeout or cancelled) in a valid run: 0.05 or 5%.').default(DEFAULT_MAX_FAILURE_RATE),
    allow_invalid: z.boolean().default(false).describe('Exit 0 even when the run is invalid (the verdict still says so).'),
    capacity_check: z.boolean().default(true).describe('Before t = 0, measure what this client can drive (~1.5 s) and refuse a plan it cannot (docs/distributed.md §Does one machine suffice?).'),
  })
  .strict();

const SimSpecObject = z
  .object({
    hardware: z.string().default('h100'),
    model: z.string().default('llama-3.1-8b'),
    prefill_ms: z.number().nonnegative().nullable().default(null).describe('Fixed-delay mode: time to first token (overrides the engine model).'),
    per_token_ms: z.number().nonnegative().nullable().default(null).describe('Fixed-delay mode: time between tokens.'),
    // Engine settings under vLLM's names (null: the simulator's defaults, docs/simulator.md).
    tensor_parallel_size: z.number().int().positive().nullable().default(null),
    max_num_seqs: z.number().int().positive().nullable().default(null),
    max_num_batched_tokens: z.number().int().positive().nullable().default(null),
    gpu_memory_utilization: z.number().positive().max(1).nullable().default(null),
    block_size: z.number().int().positive().nullable().default(null),
    max_model_len: z.number().int().positive().nullable().default(null).describe('Context length the simulated server states and enforces (null: the model profile’s).'),
    enable_prefix_caching: z.boolean().nullable().default(null),
    engine_preset: z.enum(ENGINE_PRESET_NAMES).default('vllm-v1').describe('Engine the simulated server behaves as: vllm-v1 (default), vllm-v0 (prefill-first scheduling, no chunked prefill, larger per-step CPU time), tensorrt-llm or sglang (their schedulers, memory rules and CPU overlap); docs/simulator.md §Engine presets.'),
    num_scheduler_steps: z.number().int().positive().nullable().default(null).describe('vLLM V0 multi-step scheduling (--num-scheduler-steps): decode iterations per scheduler call, their tokens streamed together (null: 1, off).'),
    num_gpu_blocks_override: z.number().int().positive().nullable().default(null).describe('KV-cache blocks, replacing the count computed from GPU memory (vLLM --num-gpu-blocks-override), e.g. to force KV pressure.'),
    profile: z.string().nullable().default(null).describe('Simulator profile file (YAML) of cost-model parameters, as `infermeter sim calibrate` writes it; its hardware must be the simulated one.'),
    reasoning_tokens: unit(parseReasoning, 'Reasoning mode (chat): each response starts with this many reasoning tokens (64), or this share of its output (0.3 or 30%), streamed as reasoning deltas before the answer.')
      .nullable()
      .default(null),
    reasoning_field: z.enum(['reasoning_content', 'reasoning']).default('reasoning_content').describe('Delta field of reasoning tokens: reasoning_content (DeepSeek, SGLang, older vLLM) or reasoning (newer vLLM).'),
    // Answer mode (docs/quality.md §Simulator answer mode): on when the dataset's entries carry checks.
    accuracy: z.number().min(0).max(1).default(1).describe('Answer mode: share of checked prompts answered correctly.'),
    json_error_rate: z.number().min(0).max(1).default(0).describe('Answer mode: share of JSON-task answers sent as malformed JSON.'),
    hallucination_rate: z.number().min(0).max(1).default(0).describe('Answer mode: share of unanswerable closed-book questions answered with a confident fabrication.'),
    refusal_rate: z.number().min(0).max(1).default(0).describe('Answer mode: share of checked prompts answered with a refusal.'),
  })
  .strict();

/**
 * The simulator's settings. A profile file (`profile`) that records the engine preset and
 * multi-step setting its runs were measured with supplies them when the spec (flags, config
 * file) does not set them itself, so the spec — and spec.json — says which engine ran.
 */
export const SimSpecSchema = z.preprocess((raw) => {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const sim = raw as Record<string, unknown>;
  if (typeof sim.profile !== 'string' || (sim.engine_preset !== undefined && sim.num_scheduler_steps !== undefined)) return raw;
  const p = loadSimProfile(sim.profile);
  const out = { ...sim };
  if (out.engine_preset === undefined && p.engine_preset !== undefined) out.engine_preset = p.engine_preset;
  if (out.num_scheduler_steps === undefined && p.num_scheduler_steps !== undefined) out.num_scheduler_steps = p.num_scheduler_steps;
  return out;
}, SimSpecObject);

/** Reasoning share of a response: a token count, or a fraction of its output length. */
export type ReasoningAmount = { tokens: number } | { fraction: number };

function parseReasoning(v: string | number): ReasoningAmount {
  const s = String(v).trim();
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(s);
  const n = pct ? Number(pct[1]) / 100 : Number(s);
  if (s === '' || !Number.isFinite(n) || n < 0) throw new UnitError(`expected a token count (64) or a share of the output (0.3 or 30%), got "${s}"`);
  if (pct || (n > 0 && n < 1)) {
    if (n > 1) throw new UnitError(`a share of the output is at most 100%, got "${s}"`);
    return { fraction: n };
  }
  if (!Number.isInteger(n)) throw new UnitError(`expected a whole token count or a share below 1, got "${s}"`);
  return { tokens: n };
}

export type SimSpec = z.output<typeof SimSpecSchema>;

/**
 * The cost-model parameters of a profile file, for the hardware it was fitted on: a profile of
 * another GPU would silently mislead, so that is a usage error.
 */
export function simProfileEngine(path: string, hardware: string): Record<string, number> {
  const p = loadSimProfile(path);
  if (p.hardware.toLowerCase() !== hardware.toLowerCase()) {
    throw new UserError(`--sim-profile: ${path} was calibrated for hardware '${p.hardware}', but the simulated hardware is '${hardware}' (add --hardware ${p.hardware})`);
  }
  return Object.fromEntries(Object.entries(p.engine).filter(([, v]) => v !== undefined)) as Record<string, number>;
}

/** The engine settings a spec gives, under the simulator's own field names. */
export function simEngineOverrides(s: SimSpec): Record<string, number | boolean> {
  const out: Record<string, number | boolean> = {};
  if (s.profile !== null) Object.assign(out, simProfileEngine(s.profile, s.hardware));
  if (s.tensor_parallel_size !== null) out.tensor_parallel = s.tensor_parallel_size;
  if (s.max_num_seqs !== null) out.max_num_seqs = s.max_num_seqs;
  if (s.max_num_batched_tokens !== null) out.max_num_batched_tokens = s.max_num_batched_tokens;
  if (s.gpu_memory_utilization !== null) out.gpu_memory_utilization = s.gpu_memory_utilization;
  if (s.block_size !== null) out.block_size = s.block_size;
  if (s.max_model_len !== null) out.max_model_len = s.max_model_len;
  if (s.enable_prefix_caching !== null) out.enable_prefix_caching = s.enable_prefix_caching;
  if (s.num_gpu_blocks_override !== null) out.num_gpu_blocks = s.num_gpu_blocks_override;
  if (s.num_scheduler_steps !== null) out.num_scheduler_steps = s.num_scheduler_steps;
  return out;
}

const SloObject = z.object({ metric: z.enum(GOODPUT_METRICS), threshold_ms: z.number().positive() }).strict();

/** `"ttft:500"` or `{metric: ttft_ms, threshold_ms: 500}`; one error message that says which form is wanted. */
const SloEntry = z
  .union([z.string(), SloObject])
  .describe('METRIC:THRESHOLD such as ttft:500 (ms) or e2el:10s, or {metric, threshold_ms}')
  .transform((v, ctx) => {
    if (typeof v !== 'string') return v;
    try {
      return parseGoodputSlo(v);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: err instanceof UnitError ? err.message : String(err) });
      return z.NEVER;
    }
  });

export const GoodputSchema = z.array(SloEntry).default([]).describe('Per-request SLOs for goodput, e.g. ["ttft:500", "tpot:50"].');

/**
 * The whole run spec. The workload section and the SLO list are given by the caller, because
 * their vocabularies live in layers config may not import (workload kinds; the metric registry).
 */
export function buildRunSpecSchema<W extends z.ZodType, S extends z.ZodType>(workload: W, slos: S) {
  return z
    .object({
      $schema: z.string().optional(),
      name: z.string().regex(/^[\w.-]+$/, 'letters, digits, ".", "_" or "-"').default('run'),
      target: TargetSpecSchema.prefault({}),
      load: LoadSpecSchema.prefault({}),
      workload,
      goodput: GoodputSchema,
      slos,
      output: OutputSpecSchema.prefault({}),
      validity: ValiditySpecSchema.prefault({}),
      sim: SimSpecSchema.prefault({}),
      cost: CostSpecSchema.prefault({}),
      observe: ObserveSpecSchema.prefault({}),
    })
    .strict();
}

export type TargetSpec = z.output<typeof TargetSpecSchema>;
export type LoadSpec = z.output<typeof LoadSpecSchema>;
export type ValiditySpec = z.output<typeof ValiditySpecSchema>;
