/**
 * A saved sweep directory (sweep.json + records.jsonl, docs/sweep-schema.md) read back stage by
 * stage, for `compare` (stage against stage) and `plan --from` (stages as capacity probes).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../errors/user-error.js';
import type { RequestRecord } from '../record/record.js';
import { readRecordsFile } from '../store/records-file.js';
import { READABLE_SWEEP_SCHEMAS, SWEEP_SCHEMA, type StageResult, type SweepResult } from '../sweep/sweep-result.js';
import { formatLoad, type StageLoadJson } from '../sweep/stages.js';

export interface SavedStage {
  index: number;
  load: StageLoadJson;
  /** `8 req/s`, `inf`, `c=16`: how stages of two sweeps are paired. */
  label: string;
  records: RequestRecord[];
  /** The stage's validity verdict as the sweep wrote it (null when it had none). */
  validity: StageResult['validity'];
}

export interface SavedSweep {
  dir: string;
  result: SweepResult;
  stages: SavedStage[];
}

export function readSweep(dir: string, flag: string, warn?: (line: string) => void): SavedSweep {
  let result: SweepResult;
  try {
    result = JSON.parse(readFileSync(join(dir, 'sweep.json'), 'utf8')) as SweepResult;
  } catch {
    throw new UserError(`${flag} ${dir}: sweep.json is not valid JSON`);
  }
  if (!READABLE_SWEEP_SCHEMAS.includes(result.schema)) throw new UserError(`${flag} ${dir}: sweep.json has schema ${JSON.stringify(result.schema ?? null)}, expected ${SWEEP_SCHEMA}`);
  if (!existsSync(join(dir, 'records.jsonl'))) throw new UserError(`${flag} ${dir}: no records.jsonl in this sweep directory`);
  const records = readRecordsFile(join(dir, 'records.jsonl'), warn ? { warn } : {}).records;
  const stages = result.stages.map((s): SavedStage => {
    const load = s.load as unknown as StageLoadJson;
    return { index: s.index, load, label: formatLoad(load), records: records.filter((r) => r.stage === s.index).sort((a, b) => a.id - b.id), validity: s.validity ?? null };
  });
  return { dir, result, stages };
}
