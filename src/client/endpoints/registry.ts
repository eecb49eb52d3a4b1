/**
 * The endpoint kinds by name: `--endpoint-type NAME`, vLLM's `--backend` names for the same
 * APIs, or the API path when no type is given. The one place that maps a name or path to a kind.
 */
import { UserError } from '../../errors/user-error.js';
import type { EndpointKind } from './endpoint-kind.js';
import { chatKind, completionsKind } from './openai.js';
import { embeddingsKind } from './embeddings.js';
import { responsesKind } from './responses.js';
import { anthropicKind } from './anthropic.js';

const BUILT_IN: readonly EndpointKind[] = [completionsKind, chatKind, embeddingsKind, responsesKind, anthropicKind];

/** vLLM `bench serve --backend` names (vllm/benchmarks/lib/endpoint_request_func.py) for the kinds we have. */
export const VLLM_BACKEND_NAMES: Readonly<Record<string, string>> = {
  vllm: 'completions',
  openai: 'completions',
  'openai-chat': 'chat',
  'openai-embeddings': 'embeddings',
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
  const k = kinds.get(name) ?? kinds.get(VLLM_BACKEND_NAMES[name] ?? '');
  if (k === undefined) {
    throw new UserError(`--endpoint-type ${name}: unknown endpoint kind; use one of ${endpointTypeNames().join(', ')} (or vLLM's --backend ${Object.keys(VLLM_BACKEND_NAMES).join(', ')})`);
  }
  return k;
}

/**
 * The kind whose default path (without its `/v1`) `path` ends with, the longest such path first
 * (`/chat/completions` before `/completions`); completions when none does (vLLM's default too).
 */
export function endpointKindForPath(path: string): EndpointKind {
  const p = path.replace(/\/+$/, '');
  const bySuffix = [...kinds.values()].sort((a, b) => b.path.length - a.path.length);
  return bySuffix.find((k) => p.endsWith(k.path.replace(/^\/v1/, ''))) ?? completionsKind;
}

/** The kind a target uses: its `endpoint_type` when set, else the one its path names. */
export function resolveEndpointKind(type: string | null | undefined, path: string): EndpointKind {
  return type ? endpointKindNamed(type) : endpointKindForPath(path);
}

/**
 * Adds a kind (a plugin's, docs/plugins.md) under its name.
 * @throws UserError when the name is taken
 */
export function registerEndpointKind(kind: EndpointKind): void {
  const taken = kinds.get(kind.name);
  if (taken !== undefined && taken !== kind) throw new UserError(`--plugin: endpoint kind "${kind.name}" is already defined; give the plugin's kind another name`);
  kinds.set(kind.name, kind);
}

/** What the workload builds for a target's kind: chat messages, or a prompt (workload/types.ts). */
export function workloadShapeOf(target: { endpoint: string; endpoint_type?: string | null | undefined }): 'chat' | 'completions' {
  return resolveEndpointKind(target.endpoint_type, target.endpoint).input === 'messages' ? 'chat' : 'completions';
}
