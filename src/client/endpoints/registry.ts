/**
 * The endpoint kinds by name: `--endpoint-type NAME`, vLLM's `--backend` names for the same
 * APIs, or the API path when no type is given. The one place that maps a name or path to a kind.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { UserError } from '../../errors/user-error.js';
import type { EndpointKind } from './endpoint-kind.js';
import { GuardedScan } from './guarded-scan.js';
import { chatKind, completionsKind } from './openai.js';
import { embeddingsKind } from './embeddings.js';
import { responsesKind } from './responses.js';
import { anthropicKind } from './anthropic.js';
import { rerankKind, scoreKind } from './rerank.js';
import { transcriptionKind } from './transcription.js';
import { sglangCumulativeKind, sglangIncrementalKind, tgiKind, TRITON_PATH, tritonCumulativeKind, tritonDeltaKind } from './native.js';

const BUILT_IN: readonly EndpointKind[] = [completionsKind, chatKind, embeddingsKind, responsesKind, anthropicKind, tgiKind, sglangCumulativeKind, sglangIncrementalKind, tritonDeltaKind, tritonCumulativeKind, rerankKind, scoreKind, transcriptionKind];

/** vLLM `bench serve --backend` names (vllm/benchmarks/lib/endpoint_request_func.py) for the kinds we have. */
export const VLLM_BACKEND_NAMES: Readonly<Record<string, string>> = {
  vllm: 'completions',
  openai: 'completions',
  'openai-chat': 'chat',
  'openai-embeddings': 'embeddings',
  'openai-audio': 'transcription',
};

const kinds = new Map<string, EndpointKind>(BUILT_IN.map((k) => [k.name, k]));

/** Every kind's name, built-in first. */
export function endpointTypeNames(): string[] {
  return [...kinds.keys()];
}

/**
 * The kind of a name (ours or a vLLM backend name).
 * @throws UserError naming the known kinds
 */
export function endpointKindNamed(name: string): EndpointKind {
  const k = kinds.get(name) ?? kinds.get(VLLM_BACKEND_NAMES[name] ?? '') ?? plugins.get(name);
  if (k === undefined) {
    throw new UserError(`--endpoint-type ${name}: unknown endpoint kind; use one of ${endpointTypeNames().join(', ')} (or vLLM's --backend ${Object.keys(VLLM_BACKEND_NAMES).join(', ')})`);
  }
  return k;
}

/**
 * The kind whose default path (without its `/v1`) `path` ends with, the longest such path first
 * (`/chat/completions` before `/completions`); completions when none does (vLLM's default too).
 * Triton's paths name a model (`/v2/models/NAME/generate_stream`): triton; `/generate` is SGLang's
 * (TGI's unary /generate needs `--endpoint-type tgi`).
 */
export function endpointKindForPath(path: string): EndpointKind {
  const p = path.replace(/\/+$/, '');
  if (TRITON_PATH.test(p)) return tritonDeltaKind;
  const bySuffix = [...kinds.values()].sort((a, b) => b.path.length - a.path.length);
  return bySuffix.find((k) => p.endsWith(k.path.replace(/^\/v1/, ''))) ?? completionsKind;
}

/** The kind a target uses: its `endpoint_type` when set, else the one its path names. */
export function resolveEndpointKind(type: string | null | undefined, path: string): EndpointKind {
  return type ? endpointKindNamed(type) : endpointKindForPath(path);
}

/** An `--endpoint-type` that names a module (docs/plugins.md): a path, or a file name ending in .js/.mjs. */
export function isPluginPath(type: string | null | undefined): type is string {
  return typeof type === 'string' && (/[\\/]/.test(type) || /\.m?js$/.test(type));
}

/** Plugins by the `--endpoint-type` that named them (a module is imported once per thread). */
const plugins = new Map<string, EndpointKind>();

/**
 * Imports the plugin an `--endpoint-type` path names and registers its kind under that path, so
 * resolveEndpointKind finds it; nothing for a built-in name. Each thread that sends (the load
 * workers) loads it itself: modules are per thread.
 * @throws UserError in one line when the module cannot be imported or does not export a kind
 */
export async function loadEndpointPlugin(type: string | null | undefined): Promise<EndpointKind | null> {
  if (!isPluginPath(type)) return null;
  const known = plugins.get(type);
  if (known) return known;
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(resolve(type)).href)) as Record<string, unknown>;
  } catch (err) {
    throw new UserError(`--endpoint-type ${type}: cannot load the plugin: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`);
  }
  const kind = (mod.default ?? mod.endpointKind) as EndpointKind | undefined;
  const problem = kindProblem(kind);
  if (problem !== null) throw new UserError(`--endpoint-type ${type}: the plugin does not export an endpoint kind (docs/plugins.md): ${problem}`);
  try {
    // Once, before any load: a body builder that throws is refused here, not in the dispatch loop.
    kind!.buildBody({ prompt: 'probe', messages: null, prompt_tokens: 1, max_tokens: 1, task: null, expected: null, session: null, turn: null }, { model: 'probe', stream: false, ignoreEos: false, extraBody: {} });
  } catch (err) {
    throw new UserError(`--endpoint-type ${type}: the plugin's buildBody threw: ${err instanceof Error ? err.message : String(err)}`);
  }
  const k = kind!;
  const scanner = k.newScanner;
  // Over the plugin's own object, so a class instance keeps its methods.
  const guarded: EndpointKind = scanner ? Object.assign(Object.create(k) as EndpointKind, { newScanner: (o: { keepText: boolean }) => new GuardedScan(scanner.call(k, o)) }) : k;
  plugins.set(type, guarded);
  return guarded;
}

/** What is missing from an export to be an EndpointKind; null when nothing is. */
function kindProblem(k: unknown): string | null {
  if (typeof k !== 'object' || k === null) return 'export default (or export const endpointKind) an object';
  const o = k as Record<string, unknown>;
  if (typeof o.name !== 'string' || o.name === '') return 'name: a non-empty string';
  if (typeof o.path !== 'string' || !o.path.startsWith('/')) return 'path: a string starting with /';
  if (typeof o.generates !== 'boolean') return 'generates: true or false';
  if (o.input !== 'prompt' && o.input !== 'messages' && o.input !== 'audio') return 'input: "prompt", "messages" or "audio"';
  for (const f of ['authHeaders', 'buildBody', 'parseUnary'] as const) if (typeof o[f] !== 'function') return `${f}: a function`;
  if (o.buildRawBody !== undefined && typeof o.buildRawBody !== 'function') return 'buildRawBody: a function, or absent';
  if (o.newScanner !== undefined && typeof o.newScanner !== 'function') return 'newScanner: a function, or absent';
  return null;
}

/** What the workload builds for a target's kind: chat messages, or a prompt (workload/types.ts). */
export function workloadShapeOf(target: { endpoint: string; endpoint_type?: string | null | undefined }): 'chat' | 'completions' {
  return resolveEndpointKind(target.endpoint_type, target.endpoint).input === 'messages' ? 'chat' : 'completions';
}
