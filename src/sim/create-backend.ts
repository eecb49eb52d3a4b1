/** Picks the Backend for a server's `timing` option. */
import type { Backend } from './backend.js';
import { EngineBackend } from './engine-backend.js';
import type { EngineTiming } from './engine-backend.js';
import { FixedBackend } from './fixed-backend.js';

export type FixedTiming = { kind: 'fixed'; prefillMs: number; perTokenMs: number };
export type TimingOptions = FixedTiming | EngineTiming;
export type { EngineTiming } from './engine-backend.js';

export interface CreatedBackend {
  backend: Backend;
  /** KV block size in tokens (prefix-cache hashing granularity). */
  blockSize: number;
  /** Context limit served in /v1/models (engine timing only). */
  maxModelLen: number | null;
}

/** `warn` receives the backend's overload warnings (late-steps.ts); `now` is its clock (ms, performance.now by default). */
export function createBackend(t: TimingOptions, warn?: (line: string) => void, now?: () => number): CreatedBackend {
  if (t.kind === 'fixed') return { backend: new FixedBackend(t.prefillMs, t.perTokenMs, now, warn), blockSize: 16, maxModelLen: null };
  const backend = new EngineBackend(t, now, warn);
  return { backend, blockSize: backend.engine.kv.blockSize, maxModelLen: backend.engine.maxLen };
}
