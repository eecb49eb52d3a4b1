/** Which run folders the dashboard lists as in progress: progress.jsonl and no result.json, whatever kind of entry names them. */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { liveRuns } from '../../src/dashboard/run-files.js';
import { PROGRESS_FILE } from '../../src/store/progress-file.js';
import { tempDir } from '../helpers/temp-dir.js';

function run(results: string, name: string, files: string[]): string {
  const dir = join(results, name);
  mkdirSync(dir, { recursive: true });
  for (const f of files) writeFileSync(join(dir, f), f === PROGRESS_FILE ? '{"done":1}\n{"done":2}\n' : '{}');
  return dir;
}

describe('liveRuns', () => {
  it('lists folders (and links to folders) with progress but no result; skips files, hidden and finished ones', () => {
    const results = join(tempDir('live-runs'), 'results');
    run(results, 'finished', [PROGRESS_FILE, 'result.json']);
    run(results, 'going', [PROGRESS_FILE]);
    run(results, 'empty', []);
    run(results, '.hidden', [PROGRESS_FILE]);
    const elsewhere = run(tempDir('live-runs-target'), 'linked', [PROGRESS_FILE]);
    symlinkSync(elsewhere, join(results, 'linked-going'));
    symlinkSync(join(results, 'finished'), join(results, 'linked-finished'));
    symlinkSync(join(results, 'nowhere'), join(results, 'dangling'));
    writeFileSync(join(results, 'a-file'), '');
    writeFileSync(join(results, PROGRESS_FILE), '{"done":9}\n');
    const live = liveRuns(results);
    expect(live.map((r) => r.run_id).sort()).toEqual(['going', 'linked-going']);
    expect(live.map((r) => r.last)).toEqual([{ done: 2 }, { done: 2 }]);
    expect(live.every((r) => r.model === null && typeof r.started_at === 'string')).toBe(true);
  });

  it('a missing results folder has none', () => {
    expect(liveRuns(join(tempDir('live-runs-none'), 'absent'))).toEqual([]);
  });
});
