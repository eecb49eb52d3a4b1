/**
 * What coordinator and workers compare before a distributed run or sweep: the exact spec hash
 * (the comparable projection's settings and its draws, seed and salt: every worker sends its share
 * of one set of prompts), and for a sweep the same hash with the load's rate and concurrency left
 * out — each stage's load comes from the coordinator, not from the worker's flags.
 */
import type { StageLoadMessage } from '../distributed/protocol.js';
import { exactSpecHash } from '../analysis/comparable-spec.js';
import type { StageLoad } from '../sweep/stages.js';
import { toJsonLoad } from '../sweep/stages.js';
import type { RunSpec } from './run-spec.js';

export function distributedHashes(spec: RunSpec): { spec: string; stage: string } {
  const opts = { simulated: spec.target.base_url === null, driver: 'http' };
  const neutral = { ...spec, load: { ...spec.load, request_rate: null, concurrency: null } };
  return { spec: exactSpecHash(spec, opts), stage: exactSpecHash(neutral, opts) };
}

export function stageLoadMessage(load: StageLoad): StageLoadMessage {
  return toJsonLoad(load);
}

export function stageLoadOf(m: StageLoadMessage): StageLoad {
  return m.kind === 'rate' ? { kind: 'rate', rate: m.rate === 'inf' ? Infinity : m.rate } : { kind: 'concurrency', concurrency: m.concurrency };
}
