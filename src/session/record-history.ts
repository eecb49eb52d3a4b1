/** The end of every saved run: its row in the results folder's history. Never fails the run. */
import { indexRun } from '../history/history-index.js';
import type { RunDir } from '../store/run-dir.js';

/** Returns nothing; a history that could not be written is said through `warn`. */
export async function recordInHistory(resultsDir: string, dir: RunDir | null, warn: (line: string) => void): Promise<void> {
  if (!dir) return;
  let warning: string | null;
  try {
    warning = await indexRun(resultsDir, dir.path);
  } catch (err) {
    warning = `history: not indexed (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); \`infermeter history --reindex\` adds it later`;
  }
  if (warning) warn(`warning: ${warning}`);
}
