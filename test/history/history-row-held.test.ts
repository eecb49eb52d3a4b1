/**
 * A run that just finished journals its history row from the result and spec it holds in memory
 * (session/record-history.ts), not by reading its directory back. Oracle: the row `reindex` builds
 * from the same directory (rowFromRunDir). They must be equal field for field, or `trend` would
 * see a run change its spec hash or figures when the history is rebuilt.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, simulate } from '../../src/index.js';
import { PENDING_DIR } from '../../src/history/history-journal.js';
import { rowFromRunDir } from '../../src/history/history-row.js';
import { tempDir } from '../helpers/temp-dir.js';

function journaled(results: string, runId: string): unknown {
  return JSON.parse(readFileSync(join(results, PENDING_DIR, `${runId}.json`), 'utf8'));
}

describe('the history row of a finished run', () => {
  it('from memory equals the row read back from its directory: sim run, open loop and an inf-rate burst', async () => {
    const results = tempDir('held-row');
    for (const request_rate of [8, 'inf'] as const) {
      const r = await simulate({ load: { num_prompts: 30, request_rate, seed: 2 }, workload: { random_input_len: 64, random_output_len: 8 }, slos: ['p95(ttft) < 2s'], output: { result_dir: results, report: false } });
      const dir = join(results, r.run.id!);
      expect(journaled(results, r.run.id!)).toEqual(JSON.parse(JSON.stringify(rowFromRunDir(results, dir))));
    }
  });

  it('from memory equals the row read back: a run over HTTP against the built-in simulator', { timeout: 60_000 }, async () => {
    const results = tempDir('held-row-http');
    const r = await run({ load: { num_prompts: 12, request_rate: 20 }, workload: { random_input_len: 32, random_output_len: 4 }, output: { result_dir: results, report: false } });
    expect(journaled(results, r.run.id!)).toEqual(JSON.parse(JSON.stringify(rowFromRunDir(results, join(results, r.run.id!)))));
  });
});
