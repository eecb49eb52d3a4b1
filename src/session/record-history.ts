/** The end of every saved run: its row in the results folder's history. Never fails the run. */
import { indexRun, indexRunResult } from '../history/history-index.js';
import type { RunDir } from '../store/run-dir.js';

/** What a run that just finished holds in memory: result.json's and spec.json's content. */
export interface HeldRun {
  result: object;
  spec: unknown;
}

/**
 * Returns nothing; a history that could not be written is said through `warn`. With `held`, the
 * row is built from the objects in memory; without (a sweep), from the directory.
 */
export async function recordInHistory(resultsDir: string, dir: RunDir | null, warn: (line: string) => void, held?: HeldRun): Promise<void> {
  if (!dir) return;
  let warning: string | null;
  try {
    warning = held ? await indexRunResult(resultsDir, dir.path, held.result as Record<string, unknown>, held.spec) : await indexRun(resultsDir, dir.path);
  } catch (err) {
    warning = `history: not indexed (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); \`infermeter history --reindex\` adds it later`;
  }
  if (warning) warn(`warning: ${warning}`);
}
