/** Picks the Backend for a server's `timing` option. */
import type { Backend } from './backend.js';
import { FixedBackend } from './fixed-backend.js';

export type TimingOptions =
  | { kind: 'fixed'; prefillMs: number; perTokenMs: number }
  | { kind: 'engine'; hardware: string; model: string };

export interface CreatedBackend {
  backend: Backend;
  /** KV block size in tokens (prefix-cache hashing granularity). */
  blockSize: number;
}

export function createBackend(t: TimingOptions): CreatedBackend {
  if (t.kind === 'fixed') return { backend: new FixedBackend(t.prefillMs, t.perTokenMs), blockSize: 16 };
  throw new Error('engine timing is not implemented yet');
}
