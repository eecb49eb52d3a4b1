/**
 * Progress lines for the steps before t = 0 that can take seconds with nothing else on stderr:
 * reading a big dataset file (JSON.parse of a few hundred MiB), and the load workers' own
 * preparation — each worker builds its workload again from the file, and opens its share of the
 * preconnected connections (10 s per connection at worst, docs/load.md). One line before, one
 * with the time it took after, as `analyze` does for a big records file.
 */
import { statSync } from 'node:fs';
import type { WorkloadSpec } from '../workload/index.js';

/** A dataset file from this size up gets the lines (the same bound as analyze's records file). */
export const SLOW_DATASET_BYTES = 16 * 2 ** 20;
/** Preconnected connections from this count up get the workers' line (the automatic count stops at 256). */
export const SLOW_PRECONNECT = 256;

export const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
export const secondsSince = (t0: number): string => `${((performance.now() - t0) / 1000).toFixed(1)} s`;

/** The size of the workload's dataset file when it is a big one, else null (no file, a folder, small). */
export function bigDatasetBytes(w: WorkloadSpec): number | null {
  if (!w.dataset_path) return null;
  try {
    const st = statSync(w.dataset_path);
    return st.isFile() && st.size >= SLOW_DATASET_BYTES ? st.size : null;
  } catch {
    return null; // the workload's own reader says what is wrong with the path
  }
}

/** What the load workers do before t = 0 that takes long, as one sentence; null when nothing does. */
export function workerPreparation(w: WorkloadSpec, workers: number, connections: number): string | null {
  const big = bigDatasetBytes(w);
  const parts: string[] = [];
  if (big !== null) parts.push(`reads the dataset again (${mib(big)})`);
  if (connections >= SLOW_PRECONNECT) parts.push(`opens its share of ${connections} connections`);
  if (parts.length === 0) return null;
  const who = workers === 0 ? 'the load, on this thread,' : workers === 1 ? 'the load worker' : `each of ${workers} load workers`;
  return `load: preparing before t = 0: ${who} ${parts.join(' and ')}…`;
}
