/**
 * What a server says it is, read from the answers of its metadata endpoints and the info series
 * of its metrics: pure functions of those texts, so a real server, the simulator over HTTP and
 * `sim run` in virtual time (which renders the same texts) are read by one parser.
 *
 * Sources (docs/result-schema.md §environment):
 * - `GET /v1/models`: the served model's `id`, `root`, `max_model_len` (vLLM, SGLang), `owned_by`.
 * - `GET /version` (vLLM, SGLang: `{"version": …}`); `GET /info` (TGI: `version`, `model_sha`,
 *   `model_dtype`, limits); `GET /props` (llama-server: `build_info`, `total_slots`).
 * - /metrics: which engine (the marker metrics of engines.ts); vLLM's `vllm:cache_config_info`
 *   (value 1, the CacheConfig as labels); SGLang's `sglang:max_total_num_tokens`; the simulator's
 *   `infermeter_sim:engine_info` (sim/identity.ts); DCGM-named GPU series: `modelName`,
 *   `DCGM_FI_DRIVER_VERSION` and `UUID` labels, framebuffer size from `DCGM_FI_DEV_FB_TOTAL` or
 *   `_FB_USED` + `_FB_FREE` (+ `_FB_RESERVED`), in MiB.
 */
import { detectEngines } from './engines.js';
import type { Exposition, Sample } from './exposition.js';

/** The simulator's info series (sim/identity.ts writes it; this reads it). */
export const SIM_INFO_SERIES = 'infermeter_sim:engine_info';

/** Info series whose labels are an engine's settings, by engine. */
const SETTINGS_SERIES: Record<string, readonly string[]> = {
  vllm: ['vllm:cache_config_info'],
};

/** Labels of info series that name the series, not a setting. */
const NOT_SETTINGS = new Set(['engine', 'version', 'model_name', '__name__']);

export interface EngineIdentity {
  /** vllm, sglang, tgi, llamacpp, infermeter-sim; null when no series or answer names one. */
  engine: string | null;
  version: string | null;
  settings: Record<string, string> | null;
  /** Where each field came from, e.g. "vllm:cache_config_info". */
  sources: string[];
}

export interface GpuIdentity {
  model: string | null;
  count: number | null;
  driver: string | null;
  /** Framebuffer per GPU (the largest, when they differ), MiB. */
  memory_mib: number | null;
}

export interface ModelIdentity {
  id: string;
  root: string | null;
  max_model_len: number | null;
  owned_by: string | null;
}

type Obj = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const posInt = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : null);

/** The served model's entry of a /v1/models answer (the one named `model`, else the first); null when it lists none. */
export function modelIdentityOf(json: unknown, model: string | null): ModelIdentity | null {
  const data = json && typeof json === 'object' ? (json as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) return null;
  const entries = data.filter((m): m is Obj => !!m && typeof m === 'object' && typeof (m as Obj).id === 'string');
  const m = entries.find((e) => e.id === model) ?? entries[0];
  if (!m) return null;
  return { id: m.id as string, root: str(m.root), max_model_len: posInt(m.max_model_len), owned_by: str(m.owned_by) };
}

/** `{"version": "0.6.3"}` (vLLM, SGLang) → "0.6.3". */
export function versionOf(json: unknown): string | null {
  return json && typeof json === 'object' ? str((json as Obj).version) : null;
}

/** TGI's GET /info: its version, and the settings it states (the model revision among them). */
export function tgiInfoOf(json: unknown): { version: string | null; settings: Record<string, string> } | null {
  if (!json || typeof json !== 'object') return null;
  const o = json as Obj;
  if (typeof o.model_id !== 'string' || (typeof o.max_total_tokens !== 'number' && typeof o.max_concurrent_requests !== 'number')) return null;
  const settings: Record<string, string> = {};
  for (const k of ['model_sha', 'model_dtype', 'model_device_type', 'max_concurrent_requests', 'max_input_tokens', 'max_input_length', 'max_total_tokens', 'max_batch_total_tokens', 'max_best_of', 'sha']) {
    const v = o[k];
    if (typeof v === 'string' || typeof v === 'number') settings[k] = String(v);
  }
  return { version: str(o.version), settings };
}

/** llama-server's GET /props: its build, slots and context size. */
export function llamaPropsOf(json: unknown): { version: string | null; settings: Record<string, string> } | null {
  if (!json || typeof json !== 'object') return null;
  const o = json as Obj;
  if (typeof o.total_slots !== 'number' && !o.default_generation_settings) return null;
  const settings: Record<string, string> = {};
  if (typeof o.total_slots === 'number') settings.total_slots = String(o.total_slots);
  const gen = o.default_generation_settings;
  const nCtx = gen && typeof gen === 'object' ? (gen as Obj).n_ctx : undefined;
  if (typeof nCtx === 'number') settings.n_ctx = String(nCtx);
  return { version: str(o.build_info), settings };
}

function labelsOf(samples: readonly Sample[], name: string): Record<string, string> | null {
  const s = samples.find((x) => x.name === name);
  if (!s) return null;
  const out: Record<string, string> = {};
  for (const k of Object.keys(s.labels).sort()) if (!NOT_SETTINGS.has(k)) out[k] = s.labels[k] as string;
  return out;
}

/** The engine, version and settings the metrics state (the simulator's info series first: it also serves vLLM's names). */
export function engineIdentityOf(expo: Exposition): EngineIdentity {
  const samples = expo.samples;
  const sim = samples.find((s) => s.name === SIM_INFO_SERIES);
  if (sim) {
    const settings = labelsOf(samples, SIM_INFO_SERIES) ?? {};
    return { engine: str(sim.labels.engine) ?? 'infermeter-sim', version: str(sim.labels.version), settings, sources: [SIM_INFO_SERIES] };
  }
  const found = detectEngines(new Set(samples.map((s) => s.name))).filter((e) => e.id !== 'dcgm');
  const engine = found[0]?.id ?? null;
  if (engine === null) return { engine: null, version: null, settings: null, sources: [] };
  const sources = [`${found[0]!.marker} (engine)`];
  let settings: Record<string, string> | null = null;
  for (const series of SETTINGS_SERIES[engine] ?? []) {
    const labels = labelsOf(samples, series);
    if (labels) {
      settings = { ...(settings ?? {}), ...labels };
      sources.push(series);
    }
  }
  if (engine === 'sglang') {
    const tokens = samples.find((s) => s.name === 'sglang:max_total_num_tokens');
    if (tokens && Number.isFinite(tokens.value)) {
      settings = { max_total_num_tokens: String(tokens.value) };
      sources.push('sglang:max_total_num_tokens');
    }
  }
  return { engine, version: null, settings, sources };
}

const MIB_SERIES = ['DCGM_FI_DEV_FB_USED', 'DCGM_FI_DEV_FB_FREE', 'DCGM_FI_DEV_FB_RESERVED'];

/** The GPUs the DCGM-named series describe (an exporter, nvidia-smi's identity query, the simulator); null when none. */
export function gpuIdentityOf(expo: Exposition): GpuIdentity | null {
  const dcgm = expo.samples.filter((s) => s.name.startsWith('DCGM_FI_') && (s.labels.gpu !== undefined || s.labels.UUID !== undefined));
  if (dcgm.length === 0) return null;
  const keyOf = (s: Sample): string => `${s.labels.Hostname ?? s.labels.hostname ?? ''}/${s.labels.UUID ?? s.labels.gpu}`;
  const gpus = new Map<string, { model: string | null; driver: string | null; total: number | null; parts: Map<string, number> }>();
  for (const s of dcgm) {
    const key = keyOf(s);
    let g = gpus.get(key);
    if (!g) gpus.set(key, (g = { model: null, driver: null, total: null, parts: new Map() }));
    g.model ??= str(s.labels.modelName);
    g.driver ??= str(s.labels.DCGM_FI_DRIVER_VERSION);
    if (!Number.isFinite(s.value)) continue;
    if (s.name === 'DCGM_FI_DEV_FB_TOTAL') g.total = s.value;
    else if (MIB_SERIES.includes(s.name) && !g.parts.has(s.name)) g.parts.set(s.name, s.value);
  }
  const distinct = (xs: (string | null)[]): string | null => {
    const set = [...new Set(xs.filter((x): x is string => x !== null))];
    return set.length === 0 ? null : set.join(' + ');
  };
  const all = [...gpus.values()];
  const mem = all.map((g) => g.total ?? (g.parts.has('DCGM_FI_DEV_FB_USED') && g.parts.has('DCGM_FI_DEV_FB_FREE') ? [...g.parts.values()].reduce((a, b) => a + b, 0) : null));
  const known = mem.filter((m): m is number => m !== null);
  return {
    model: distinct(all.map((g) => g.model)),
    count: all.length,
    driver: distinct(all.map((g) => g.driver)),
    memory_mib: known.length > 0 ? Math.max(...known) : null,
  };
}
