/**
 * Finds a hardware or model profile by id (case-insensitive, a few aliases) or loads a user
 * profile from a JSON/YAML file path. A wrong name or field is a UserError naming it.
 */
import { readFileSync } from 'node:fs';
import { parseYaml } from '../../util/yaml.js';
import { UserError } from '../../errors/user-error.js';
import { HARDWARE } from './hardware.js';
import type { HardwareProfile } from './hardware.js';
import { MODELS } from './models.js';
import type { ModelProfile } from './models.js';

const HW_ALIASES: Record<string, string> = {
  'a100-80gb': 'a100', 'a100-sxm': 'a100', 'h100-sxm': 'h100', 'h100-80gb': 'h100', 'h200-sxm': 'h200', mi300: 'mi300x', 'a100-40g': 'a100-40gb', 'l4-24gb': 'l4',
};
const MODEL_ALIASES: Record<string, string> = {
  'meta-llama/llama-3.1-8b-instruct': 'llama-3.1-8b', 'meta-llama/llama-3.1-8b': 'llama-3.1-8b', 'llama3.1-8b': 'llama-3.1-8b',
  'meta-llama/llama-3.1-70b-instruct': 'llama-3.1-70b', 'meta-llama/llama-3.1-70b': 'llama-3.1-70b', 'llama3.1-70b': 'llama-3.1-70b',
  'qwen/qwen2.5-7b-instruct': 'qwen2.5-7b', 'qwen/qwen2.5-7b': 'qwen2.5-7b',
  'mistralai/mixtral-8x7b-instruct-v0.1': 'mixtral-8x7b', 'mistralai/mixtral-8x7b-v0.1': 'mixtral-8x7b',
  'qwen/qwen3-30b-a3b': 'qwen3-30b-a3b',
  'qwen/qwen3-8b': 'qwen3-8b',
  'qwen/qwen2.5-0.5b-instruct': 'qwen2.5-0.5b', 'qwen/qwen2.5-0.5b': 'qwen2.5-0.5b',
};

const HW_FIELDS = ['peak_flops', 'mem_bandwidth', 'mem_bytes', 'link_bandwidth'] as const;
const MODEL_FIELDS = ['layers', 'hidden', 'heads', 'kv_heads', 'head_dim', 'params'] as const;

function isFile(ref: string): boolean {
  return /\.(json|ya?ml)$/i.test(ref);
}

function loadFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new UserError(`cannot read profile file ${path}`);
  }
  let v: unknown;
  try {
    v = /\.json$/i.test(path) ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw new UserError(`${path}: not valid ${/\.json$/i.test(path) ? 'JSON' : 'YAML'}: ${(e as Error).message.split('\n')[0]}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new UserError(`${path}: a profile must be an object`);
  return v as Record<string, unknown>;
}

function requirePositive(obj: Record<string, unknown>, fields: readonly string[], where: string): void {
  for (const f of fields) {
    const x = obj[f];
    if (typeof x !== 'number' || !(x > 0)) throw new UserError(`${where}: field ${f} must be a positive number`);
  }
}

export function hardwareProfile(ref: string | HardwareProfile): HardwareProfile {
  if (typeof ref !== 'string') return ref;
  if (isFile(ref)) {
    const o = loadFile(ref);
    requirePositive(o, HW_FIELDS, ref);
    // A file without efficiencies gets the H100's: the best-measured part (docs/simulator.md).
    return { id: String(o['id'] ?? ref), name: String(o['name'] ?? o['id'] ?? ref), compute_efficiency: 0.5, memory_efficiency: 0.8, ...(o as object) } as HardwareProfile;
  }
  const key = ref.toLowerCase();
  const id = HW_ALIASES[key] ?? key;
  const hw = HARDWARE.find((h) => h.id === id);
  if (!hw) throw new UserError(`unknown hardware '${ref}' (known: ${HARDWARE.map((h) => h.id).join(', ')}, or a .json/.yaml profile file)`);
  return hw;
}

export function modelProfile(ref: string | ModelProfile): ModelProfile {
  if (typeof ref !== 'string') return ref;
  if (isFile(ref)) {
    const o = loadFile(ref);
    requirePositive(o, MODEL_FIELDS, ref);
    const params = o['params'] as number;
    return {
      id: String(o['id'] ?? ref),
      name: String(o['name'] ?? o['id'] ?? ref),
      active_params: params,
      intermediate: 3.5 * (o['hidden'] as number),
      vocab: 128256,
      weight_bytes_per_param: 2,
      kv_bytes_per_elem: 2,
      max_model_len: 32768,
      ...(o as object),
    } as ModelProfile;
  }
  const key = ref.toLowerCase();
  const id = MODEL_ALIASES[key] ?? key.replace(/^sim-/, '');
  const m = MODELS.find((x) => x.id === id);
  if (!m) throw new UserError(`unknown model '${ref}' (known: ${MODELS.map((x) => x.id).join(', ')}, or a .json/.yaml profile file)`);
  return m;
}
