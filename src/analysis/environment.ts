/**
 * A run's environment fingerprint (result.json `environment`, docs/result-schema.md
 * §environment): what was measured, as far as the server revealed it, and the client host that
 * measured it. The one definition of its fields, their names (the names `compare --vary` and
 * `history --where` take), which side each is on, and the groups a name like `gpu` stands for.
 * Capture is session/environment-capture.ts; the comparison is environment-diff.ts.
 */

export const ENVIRONMENT_VERSION = 1;

export interface ServerFingerprint {
  /** /v1/models: the served model's id, root (the weights it was loaded from), context length, owner. */
  model_id: string | null;
  model_root: string | null;
  max_model_len: number | null;
  owned_by: string | null;
  /** vllm, sglang, tgi, llamacpp, infermeter-sim. */
  engine: string | null;
  engine_version: string | null;
  /** The settings the engine states (vLLM's cache config, TGI's limits, the simulator's preset), as text. */
  engine_settings: Record<string, string> | null;
  gpu_model: string | null;
  gpu_count: number | null;
  gpu_driver: string | null;
  /** Framebuffer per GPU, MiB. */
  gpu_memory_mib: number | null;
}

export interface ClientFingerprint {
  cpu_model: string | null;
  cpu_cores: number | null;
  /** `Linux 6.8.0 x64`. */
  os: string | null;
  node_version: string | null;
  infermeter_version: string | null;
  /** The checkout's commit, when infermeter runs from a git checkout. */
  git_commit: string | null;
}

/** One worker of a distributed run: the machine that sent its share. */
export interface WorkerHost {
  node: number;
  /** Its hostname, as it said at join. */
  host: string | null;
  /** Null when the worker could not read it (or ran a version that did not send it). */
  client: ClientFingerprint | null;
}

export interface RunEnvironment {
  version: typeof ENVIRONMENT_VERSION;
  server: ServerFingerprint;
  /** The host that measured the run: in a distributed run the coordinator's (it sends nothing; `workers` sent the load). */
  client: ClientFingerprint;
  /**
   * A distributed run's workers, by node: each machine that sent load (absent in a run on one
   * machine). Shown, never compared: compare and the history's fingerprint read `client`.
   */
  workers?: WorkerHost[];
  /** Why a null field is null, by field name (a field that is known has no entry). */
  unknown: Record<string, string>;
  /** What was read: `GET /v1/models`, `vllm:cache_config_info`, `nvidia-smi`, … */
  sources: string[];
}

export type FingerprintValue = string | number | null;
export type FingerprintSide = 'server' | 'client';

export const SERVER_FIELDS = ['model_id', 'model_root', 'max_model_len', 'owned_by', 'engine', 'engine_version', 'engine_settings', 'gpu_model', 'gpu_count', 'gpu_driver', 'gpu_memory_mib'] as const satisfies readonly (keyof ServerFingerprint)[];
export const CLIENT_FIELDS = ['cpu_model', 'cpu_cores', 'os', 'node_version', 'infermeter_version', 'git_commit'] as const satisfies readonly (keyof ClientFingerprint)[];

/** Names that stand for several fields (`--vary gpu`). A group also covers every `engine_settings.*` field it lists `engine_settings` for. */
export const FIELD_GROUPS: Record<string, readonly string[]> = {
  model: ['model_id', 'model_root', 'max_model_len', 'owned_by'],
  engine: ['engine', 'engine_version', 'engine_settings'],
  gpu: ['gpu_model', 'gpu_count', 'gpu_driver', 'gpu_memory_mib'],
};

/**
 * Engine settings that are what the engine found, not what was set (vLLM's KV block counts are
 * profiled from the GPU's free memory; SGLang's token pool likewise): they differ whenever the
 * GPU does, so they are shown and never block a comparison — as a duration-bound run's request
 * count is shown and never blocks the load-shape check.
 */
export const OUTCOME_SETTINGS: ReadonlySet<string> = new Set(['num_gpu_blocks', 'num_cpu_blocks', 'max_total_num_tokens']);

/** One field of a fingerprint, flattened: engine settings become `engine_settings.<key>`. */
export interface FingerprintField {
  field: string;
  side: FingerprintSide;
  value: FingerprintValue;
}

/** The fields in a fixed order (server, then client), engine settings sorted by key. */
export function flattenEnvironment(env: RunEnvironment): FingerprintField[] {
  const out: FingerprintField[] = [];
  for (const f of SERVER_FIELDS) {
    if (f === 'engine_settings') {
      const s = env.server.engine_settings;
      if (s) for (const k of Object.keys(s).sort()) out.push({ field: `engine_settings.${k}`, side: 'server', value: s[k] ?? null });
      continue;
    }
    out.push({ field: f, side: 'server', value: env.server[f] });
  }
  for (const f of CLIENT_FIELDS) out.push({ field: f, side: 'client', value: env.client[f] });
  return out;
}

/** The fields as one object, field → value (the history's `fingerprint` column). */
export function fingerprintObject(env: RunEnvironment): Record<string, FingerprintValue> {
  return Object.fromEntries(flattenEnvironment(env).map((f) => [f.field, f.value]));
}

/** Whether `name` is one field: a field name or `engine_settings.<key>` (what `history --where` takes). */
export function isFingerprintField(name: string): boolean {
  return ((SERVER_FIELDS as readonly string[]).includes(name) && name !== 'engine_settings') || (CLIENT_FIELDS as readonly string[]).includes(name) || /^engine_settings\.[A-Za-z0-9_.-]+$/.test(name);
}

/** Whether `name` is a field, a group, or `engine_settings` (all its keys): what `compare --vary` takes. */
export function isFingerprintName(name: string): boolean {
  return name in FIELD_GROUPS || name === 'engine_settings' || isFingerprintField(name);
}

/** Every field name (engine settings as `engine_settings.<key>`), for an error message. */
export function fingerprintFieldNames(): string {
  return [...SERVER_FIELDS.map((f) => (f === 'engine_settings' ? 'engine_settings.<key>' : f)), ...CLIENT_FIELDS].join(', ');
}

/** Every name `--vary` takes: the groups, then the fields. */
export function fingerprintNames(): string {
  return `${Object.keys(FIELD_GROUPS).join(', ')}, ${fingerprintFieldNames()}`;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** A result.json's `environment`, or null when absent (written before infermeter.result/3) or not one this build reads. */
export function environmentOf(result: unknown): RunEnvironment | null {
  const env = isObj(result) ? result.environment : undefined;
  if (!isObj(env) || env.version !== ENVIRONMENT_VERSION || !isObj(env.server) || !isObj(env.client)) return null;
  return env as unknown as RunEnvironment;
}
