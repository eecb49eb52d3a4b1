/**
 * A simulator profile file (`--sim-profile FILE`, written by `infermeter sim calibrate`): the
 * cost-model parameters fitted to a measured server, for the hardware and model it was fitted
 * on. Format (YAML or JSON), documented in docs/simulator.md §Calibrate:
 *
 *   kind: infermeter-sim-profile
 *   version: 1
 *   hardware: h100
 *   model: llama-3.1-8b
 *   engine_preset: vllm-v0          # the engine the runs were measured on (optional; applied on load)
 *   num_scheduler_steps: 8          # likewise (optional)
 *   engine: { memory_efficiency: 0.78, request_overhead_ms: 0.041, … }
 *   fit: { … }        # how it was fitted (runs, errors); informational
 */
import { describeIssue } from './zod-issue.js';
import { readFileSync } from 'node:fs';
import { parseYaml } from '../util/yaml.js';
import { z } from 'zod';
import { UserError } from '../errors/user-error.js';

/** Engine generations (src/sim/engine/presets.ts, whose list this must equal: test/config/sim-profile-preset.test.ts). */
export const ENGINE_PRESET_NAMES = ['vllm-v1', 'vllm-v0', 'tensorrt-llm', 'sglang'] as const;

/** The engine fields a profile may set: the simulator's cost-model parameters (docs/simulator.md §Parameters). */
export const PROFILE_ENGINE_FIELDS = [
  'compute_efficiency', 'memory_efficiency', 'kv_read_factor', 'attn_heads_exponent', 'attn_full_heads_dim', 'attn_ctx_half_tokens', 'cpu_overlap',
  'act_quant_layer_ms', 'step_overhead_ms', 'layer_overhead_ms', 'graph_layer_overhead_ms', 'request_overhead_ms', 'multi_step_overhead_ms', 'allreduce_latency_ms', 'frontend_latency_ms', 'frontend_cpu_ms', 'frontend_cpu_ms_per_1k_tokens',
  'frontend_cpu_ms_per_output_token',
] as const;

const EngineParams = z.object(Object.fromEntries(PROFILE_ENGINE_FIELDS.map((f) => [f, z.number().nonnegative().optional()])) as Record<(typeof PROFILE_ENGINE_FIELDS)[number], z.ZodOptional<z.ZodNumber>>).strict();

export const SimProfileSchema = z
  .object({
    kind: z.literal('infermeter-sim-profile'),
    version: z.literal(1),
    hardware: z.string(),
    model: z.string(),
    // The engine generation and multi-step setting the fitted runs were measured with: the fitted
    // values hold only with them, so loading the profile applies them (unless the spec sets them).
    engine_preset: z.enum(ENGINE_PRESET_NAMES).optional(),
    num_scheduler_steps: z.number().int().positive().optional(),
    engine: EngineParams,
    fit: z.record(z.string(), z.unknown()).optional(),
    // Written by `sim validate --sim-profile`: the twin's error per figure on the user's runs.
    validation: z
      .object({
        runs: z.array(z.string()),
        requests: z.number(),
        load_levels: z.array(z.string()),
        error_bar: z.record(z.string(), z.object({ median_abs_error: z.number(), max_abs_error: z.number() })),
      })
      .optional(),
  })
  .strict();

export type SimProfile = z.output<typeof SimProfileSchema>;

const cache = new Map<string, SimProfile>();

/** Drops a cached profile after its file was rewritten (sim validate records its error bar in it). */
export function forgetSimProfile(path: string): void {
  cache.delete(path);
}

/** Reads and checks a profile file; a wrong one is a one-line UserError naming the file and field. */
export function loadSimProfile(path: string): SimProfile {
  const hit = cache.get(path);
  if (hit) return hit;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new UserError(`--sim-profile: cannot read ${path}`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text) as unknown;
  } catch (e) {
    throw new UserError(`--sim-profile: ${path} is not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  const r = SimProfileSchema.safeParse(raw);
  if (!r.success) {
    const i = describeIssue(r.error.issues[0]!);
    throw new UserError(`--sim-profile: ${path}: ${i.path || '(top level)'}: ${i.message}`);
  }
  cache.set(path, r.data);
  return r.data;
}
