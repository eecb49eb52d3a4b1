/**
 * The load the timing tests drive through `runLoad` directly: one tiny work item, requests at a
 * constant rate, no warm-up or cool-down, no grace — so what is measured is the dispatch loop.
 */
import { arrivalTimes } from '../../src/load/arrivals.js';
import type { RunnerOptions, Sender } from '../../src/runner/run-load.js';
import type { Workload, WorkItem } from '../../src/workload/types.js';

const item: WorkItem = { prompt: 'p', messages: null, prompt_tokens: 1, max_tokens: 4, task: null, expected: null, session: null, turn: null };
export const tinyWorkload: Workload = { skipped: 0, describe: () => ({}), next: () => item };

/** `runLoad` options for `n` requests at `rate`/s (evenly spaced) through `sender`, timed by `clock`. */
export function constantRateLoad(rate: number, n: number, sender: Sender, clock: () => number): RunnerOptions {
  return {
    plan: { mode: 'open', arrivals: arrivalTimes({ rate, burstiness: 1, kind: 'constant', seed: 0 }), maxConcurrency: null },
    phases: { warmup: { requests: 0 }, cooldown: { requests: 0 }, totalRequests: null, durationMs: null },
    totalRequests: n,
    durationMs: null,
    graceMs: 0,
    workload: tinyWorkload,
    sender,
    clock,
    onRecord: () => {},
  };
}
