/**
 * The workload module's public API: what to send. See docs/workloads.md.
 */
export type { AnswerSource, ChatMessage, Session, TimedItem, WorkItem, Workload, WorkloadOptions } from './types.js';
export type { DatasetName, LengthDist, SubWorkloadSpec, TaskSpec, WorkloadSpec } from './spec.js';
export { DATASET_NAMES, LengthDistSchema, WorkloadSpecSchema, defaultWorkloadSpec } from './spec.js';
export { parseLengthDist, registerWorkloadOptions, workloadSpecFromFlags } from './flags.js';
export { createWorkload } from './create.js';
export type { Tokenizer } from './tokenizer.js';
export { estimateCount, estimateTokenizer } from './tokenizer.js';
export { loadTokenizer } from './tokenizers/load.js';
export type { Rng } from '../util/rng.js';
export { createRng } from '../util/rng.js';
