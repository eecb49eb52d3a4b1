/**
 * What the simulator says it is, the way a real server's metrics do: an info gauge
 * (`infermeter_sim:engine_info`, value 1, its settings as labels, as vLLM's
 * `vllm:cache_config_info` carries its cache settings) and the simulated GPU's name on the
 * DCGM-named series. A run's environment fingerprint reads both with the parser it reads a real
 * server with (observe/engine-identity.ts); `sim run` in virtual time renders the same text
 * without a server (identityExposition), so both drivers fill the same fields.
 */
import { infermeterVersion } from '../util/package-version.js';
import { engineConfig, maxModelLen, type EngineConfig } from './engine/config.js';
import type { HardwareProfile } from './engine/hardware.js';
import { hardwareProfile, modelProfile } from './engine/profiles.js';
import type { TimingOptions } from './create-backend.js';
import { family, fmtLabels } from './metrics/prom.js';

/** The engine name a fingerprint records for the simulator. */
export const SIM_ENGINE = 'infermeter-sim';
export const SIM_INFO_METRIC = 'infermeter_sim:engine_info';

export interface SimIdentity {
  version: string;
  /**
   * The info gauge's labels besides engine and version: the timing kind, the engine preset and
   * the engine fields the spec or preset set. Defaults the engine derives (from the GPU: its
   * batch limits, its KV block count) are outcomes of what is recorded, so they are left out.
   */
  settings: Record<string, string>;
  /** The context length the engine allows (engine timing: the model's, or --max-model-len); null with fixed delays. */
  maxModelLen: number | null;
  /** The simulated GPUs (engine timing), or null (fixed delays model no GPU). */
  gpu: { name: string; count: number; memBytes: number } | null;
}

/** A simulated GPU's name as its DCGM series carry it: the hardware preset's, marked simulated. */
export function simGpuName(hw: HardwareProfile): string {
  return `${hw.name} (simulated)`;
}

/** The identity of a simulator with this timing; `preset` is the engine preset the spec named (engine timing). */
export function simIdentity(timing: TimingOptions, preset: string | null): SimIdentity {
  const version = infermeterVersion();
  if (timing.kind === 'fixed') {
    return { version, settings: { timing: 'fixed', prefill_ms: String(timing.prefillMs), per_token_ms: String(timing.perTokenMs) }, maxModelLen: null, gpu: null };
  }
  const hw = hardwareProfile(timing.hardware);
  const cfg: EngineConfig = engineConfig(timing.engine, hw);
  const set: Record<string, string> = {};
  for (const [k, v] of Object.entries(timing.engine ?? {}).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) if (v !== undefined) set[k] = String(v);
  return {
    version,
    settings: { timing: 'engine', engine_preset: preset ?? 'vllm-v1', ...set },
    maxModelLen: maxModelLen(modelProfile(timing.model), cfg),
    gpu: { name: simGpuName(hw), count: cfg.tensor_parallel, memBytes: hw.mem_bytes },
  };
}

/** The labels of GPU i's DCGM-named series. */
export function simGpuLabels(id: SimIdentity, i: number): string {
  return fmtLabels('', { gpu: String(i), modelName: id.gpu?.name ?? 'infermeter simulated GPU' });
}

const MiB = 1024 * 1024;

/** The info gauge, and each GPU's framebuffer size (DCGM_FI_DEV_FB_TOTAL, MiB). */
export function identityExposition(id: SimIdentity): string {
  let out = family(SIM_INFO_METRIC, 'gauge', 'The simulated engine and its settings (value 1; the labels carry the information).', [
    { labels: fmtLabels('', { engine: SIM_ENGINE, version: id.version, ...id.settings }), value: 1 },
  ]);
  const gpu = id.gpu;
  if (gpu) {
    out += family('DCGM_FI_DEV_FB_TOTAL', 'gauge', 'Framebuffer memory total (in MiB).', Array.from({ length: gpu.count }, (_, i) => ({ labels: simGpuLabels(id, i), value: Math.round(gpu.memBytes / MiB) })));
  }
  return out;
}
