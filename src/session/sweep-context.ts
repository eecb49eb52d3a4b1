/**
 * The sweep a run's report draws on its first screen: the newest sweep in the results folder's
 * history (the run directory's parent) of the run's target and workload. A history that cannot
 * be read only leaves the curve out, with one warning line: it never fails a report. A folder
 * that holds no run adds no line: the report's read of the run refuses it (one line, exit 2).
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { SweepContext } from '../analysis/load-curve.js';
import { findMatchingSweep } from '../history/sweep-match.js';
import { isSweepDir } from '../store/run-bundle.js';
import { readJsonFile, readSpec } from '../store/run-bundle.js';

type Obj = Record<string, unknown>;

/** `result`: the run's result object when the caller holds it (else result.json is read). */
export async function sweepContextFor(runDir: string, result?: object, warn?: (line: string) => void): Promise<SweepContext | null> {
  if (isSweepDir(runDir)) return null;
  // No run here (a missing folder, no result.json): the report's own read says so in one line, this adds none.
  if (result === undefined && !existsSync(join(runDir, 'result.json'))) return null;
  try {
    const held = (result ?? readJsonFile(join(runDir, 'result.json'))) as Obj;
    return await findMatchingSweep(dirname(resolve(runDir)), held, readSpec(runDir));
  } catch (err) {
    warn?.(`warning: report: the history was not read for a sweep of this run's setup (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); the first screen shows no load curve`);
    return null;
  }
}
