/** Flags + optional --config file → one validated RunSpec. */
import { SIM_DEMO_DEFAULTS } from '../session/run-spec.js';
import { deepMerge, readSpecFile, validateSpec, type PlainObject } from '../config/load-spec.js';
import { workloadSpecFromFlags } from '../workload/index.js';
import { checkRunSpec, RunSpecSchema, type RunSpec } from '../session/run-spec.js';
import { redactUrl } from '../util/redact.js';
import { COST_FLAGS, LOAD_FLAGS, OBSERVE_FLAGS, OUTPUT_FLAGS, SIM_FLAGS, specFromFlags, TARGET_FLAGS, VALIDITY_FLAGS, type FlagDef } from './run-flags.js';

/** Number of requests and rate of the quickstart run against the built-in simulator. */
export { SIM_DEMO_DEFAULTS };

/**
 * With no server and no load given, `infermeter run` is a demo: vLLM's defaults (1,000
 * prompts all at once) would keep a first-time user waiting a minute behind a simulated
 * queue. The summary says which defaults were used.
 */
function applySimulatorDemoDefaults(merged: PlainObject): void {
  const target = (merged.target ?? {}) as PlainObject;
  if (target.base_url != null) return;
  const load = (merged.load ?? {}) as PlainObject;
  if (load.num_prompts === undefined && load.duration_ms === undefined) load.num_prompts = SIM_DEMO_DEFAULTS.num_prompts;
  if (load.request_rate === undefined && load.concurrency === undefined) load.request_rate = SIM_DEMO_DEFAULTS.request_rate;
  merged.load = load;
}

export interface ResolveMode {
  simulatorOnly?: boolean;
  /** false: no quickstart load against the built-in simulator (a sweep sets each stage's load; a batch-size sweep runs at the one the user gave). Default true. */
  demoDefaults?: boolean;
  extraFlags?: readonly FlagDef[];
  /**
   * The environment, for OPENAI_BASE_URL (the OpenAI SDK's convention): the server when neither
   * --base-url nor target.base_url names one. With `log`, the first line says which target is
   * used and why.
   */
  env?: Readonly<Record<string, string | undefined>>;
  log?: (line: string) => void;
}

/**
 * OPENAI_BASE_URL, when no flag or config names a server: taken, and the line saying so (a run
 * against a real server the user did not name on the command line must not pass unnoticed).
 * Null otherwise: a given --base-url is no news, and the simulator's own first line says it is used.
 */
function targetFromEnv(merged: PlainObject, mode: ResolveMode): string | null {
  const target = (merged.target ?? {}) as PlainObject;
  if (target.base_url != null) return null;
  const env = mode.env?.OPENAI_BASE_URL?.trim();
  if (!env) return null;
  target.base_url = env;
  merged.target = target;
  return `target: ${redactUrl(env)} (from OPENAI_BASE_URL), a real server; --base-url chooses another`;
}

export function resolveRunSpec(opts: Record<string, unknown>, mode: ResolveMode = {}): RunSpec {
  const configPath = typeof opts.config === 'string' ? opts.config : null;
  const fromFile = configPath ? readSpecFile(configPath) : {};
  const { spec: fromFlags, flagPaths } = specFromFlags(opts, [...TARGET_FLAGS, ...LOAD_FLAGS, ...OUTPUT_FLAGS, ...VALIDITY_FLAGS, ...SIM_FLAGS, ...COST_FLAGS, ...OBSERVE_FLAGS, ...(mode.extraFlags ?? [])]);
  const workloadFlags = workloadSpecFromFlags(opts);
  if (Object.keys(workloadFlags).length > 0) fromFlags.workload = workloadFlags;
  const merged = deepMerge(fromFile, fromFlags);
  const origin = mode.simulatorOnly ? null : targetFromEnv(merged, mode);
  if (!mode.simulatorOnly && mode.demoDefaults !== false) applySimulatorDemoDefaults(merged);
  const spec = validateSpec(RunSpecSchema, merged, { flagPaths, configPath });
  checkRunSpec(spec, flagPaths);
  if (origin !== null) mode.log?.(origin);
  return spec;
}
