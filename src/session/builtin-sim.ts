/** The simulated engine `infermeter run` starts in-process when no --base-url is given. */
import { UserError } from '../errors/user-error.js';
import { modelProfile, presetEngine, startSimServer, type EngineConfig, type ReasoningOptions, type SimServer, type SimServerOptions, type TimingOptions } from '../sim/index.js';
import type { Workload } from '../workload/index.js';
import { simEngineOverrides, simProfileEngine, type SimSpec } from '../config/schema.js';
import { loadSimProfile } from '../config/sim-profile.js';
import type { RunSpec } from './run-spec.js';
import { buildAnswerKey } from './answer-key.js';
import type { AnswerModeOptions } from '../sim/index.js';

export interface BuiltInSimulator {
  server: SimServer;
  /** The served model id (= the model profile). */
  model: string;
  /** The timing settings, for result.json. */
  timing: Record<string, unknown>;
  /** One phrase for the log line. */
  description: string;
}

/**
 * The engine fields a spec sets, on top of its engine preset's defaults for the served model
 * profile (src/sim/engine/presets.ts): what every simulator command hands the engine.
 */
export function simEngine(sim: SimSpec, profile: string): Partial<EngineConfig> {
  return presetEngine(sim.engine_preset, modelProfile(profile), simEngineOverrides(sim));
}

/**
 * The engine fields of a profile file alone (`plan --sim-profile`, which takes no other engine
 * flags): its cost parameters on top of the engine preset it records, with its multi-step setting.
 */
export function simProfileEngineFields(path: string, hardware: string, profile: string): Partial<EngineConfig> {
  const p = loadSimProfile(path);
  const user: Partial<EngineConfig> = simProfileEngine(path, hardware);
  if (p.num_scheduler_steps !== undefined) user.num_scheduler_steps = p.num_scheduler_steps;
  return presetEngine(p.engine_preset ?? 'vllm-v1', modelProfile(profile), user);
}

/** Fixed delays when either is given, else the engine model for the hardware and model profiles. */
export function simTiming(sim: SimSpec, profile: string): TimingOptions {
  return sim.prefill_ms !== null || sim.per_token_ms !== null
    ? { kind: 'fixed', prefillMs: sim.prefill_ms ?? 0, perTokenMs: sim.per_token_ms ?? 0 }
    : { kind: 'engine', hardware: sim.hardware, model: profile, engine: simEngine(sim, profile) };
}

/** Answer mode for a key: the rates the spec sets (docs/quality.md §Simulator answer mode). */
export function simAnswerRates(sim: SimSpec): NonNullable<AnswerModeOptions['rates']> {
  return { accuracy: sim.accuracy, jsonErrorRate: sim.json_error_rate, hallucinationRate: sim.hallucination_rate, refusalRate: sim.refusal_rate };
}

/** The reasoning mode the spec asks of the simulator, if any. */
export function simReasoning(sim: SimSpec): ReasoningOptions | undefined {
  const r = sim.reasoning_tokens;
  if (r === null) return undefined;
  return { ...r, field: sim.reasoning_field };
}

/**
 * The first of the simulator's overload warnings (late-steps.ts), the rest dropped: a run's
 * console says once that the simulator fell behind, so an overloaded simulator is not taken for
 * a slow model, without a line a minute interleaved with the progress display.
 */
export function firstWarningOnly(log: (line: string) => void): (line: string) => void {
  let said = false;
  return (line) => {
    if (said) return;
    said = true;
    log(`${line} (said once per run)`);
  };
}

/** The built-in simulator's server options; `log` receives one line if it falls behind its own timeline. */
export function builtInServerOptions(spec: RunSpec, workload: Workload, log: (line: string) => void): SimServerOptions {
  const profile = spec.target.model ?? spec.sim.model;
  // The simulator counts prompts the way the client does (its tokenizer, or the shared estimate).
  const reasoning = simReasoning(spec.sim);
  return {
    timing: simTiming(spec.sim, profile),
    enginePreset: spec.sim.engine_preset,
    modelName: profile,
    seed: spec.load.seed,
    ...(spec.sim.max_model_len !== null ? { maxModelLen: spec.sim.max_model_len } : {}),
    ...(workload.countTokens ? { countTokens: workload.countTokens.bind(workload) } : {}),
    ...(reasoning ? { reasoning } : {}),
    warn: firstWarningOnly(log),
  };
}

/** `log` receives one line if the simulator falls behind its own timeline (late-steps.ts). */
export async function startBuiltInSimulator(spec: RunSpec, workload: Workload, log: (line: string) => void, otlpTracesEndpoint?: string): Promise<BuiltInSimulator> {
  const profile = spec.target.model ?? spec.sim.model;
  const options = builtInServerOptions(spec, workload, log);
  const timing = options.timing!;
  let server: SimServer;
  // The workload's checked entries become the simulator's answer key: it answers their prompts.
  const key = buildAnswerKey(workload.answerSources?.() ?? []);
  const answers: AnswerModeOptions | null = key.size > 0 ? { key, rates: simAnswerRates(spec.sim) } : null;
  try {
    server = await startSimServer({ ...(answers ? { answers } : {}), ...(otlpTracesEndpoint ? { otlpTracesEndpoint } : {}), ...options });
  } catch (err) {
    throw new UserError(`simulator: ${err instanceof Error ? err.message : String(err)} (see --hardware, --model)`);
  }
  const speed = timing.kind === 'fixed' ? `fixed delays: ${timing.prefillMs} ms prefill, ${timing.perTokenMs} ms/token` : `${profile} on ${spec.sim.hardware}`;
  const description = answers ? `${speed}; answer mode for ${key.size} prompts, accuracy ${spec.sim.accuracy}` : speed;
  const answerTiming = answers ? { answer_mode: { prompts: key.size, accuracy: spec.sim.accuracy, json_error_rate: spec.sim.json_error_rate, hallucination_rate: spec.sim.hallucination_rate, refusal_rate: spec.sim.refusal_rate } } : {};
  return { server, model: profile, timing: { ...timing, ...answerTiming }, description };
}
