/**
 * The history's quality columns (docs/history.md): filled from result.json `quality`, NULL for
 * runs without answer checks, and added to a history written before they existed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { indexRun } from '../../src/history/history-index.js';
import { HISTORY_FILE, HISTORY_SCHEMA, OFFLINE, RUN_COLUMNS } from '../../src/history/history-db.js';
import { listRuns } from '../../src/history/history-query.js';
import { rowFromRunDir } from '../../src/history/history-row.js';
import { tempDir } from '../helpers/temp-dir.js';

function runDir(results: string, id: string, quality: unknown): string {
  const dir = join(results, id);
  mkdirSync(dir, { recursive: true });
  const result = {
    schema: 'infermeter.result/2',
    run: { id, name: id, started_at: '2026-11-30T10:00:00.000Z', ended_at: '2026-11-30T10:01:00.000Z', driver: 'http', interrupted: false },
    target: { base_url: null, endpoint: '/v1/completions', model: 'm', simulated: true, simulator: null, stream: true },
    load: { request_rate: 4, num_prompts: 10 },
    workload: {},
    metrics: { duration_s: 10, requests: { total: 10, ok: 10, failed: 0, failure_rate: 0 }, throughput: {}, latency: {} },
    validity: null,
    ...(quality === undefined ? {} : { quality }),
  };
  writeFileSync(join(dir, 'result.json'), JSON.stringify(result));
  return dir;
}

const QUALITY = {
  schema: 'infermeter.quality/1',
  checked: 10,
  answered: 10,
  accuracy: { n: 10, k: 8, value: 0.8, ci95: [0.49, 0.943] },
  hallucination: { rate: { n: 4, k: 1, value: 0.25, ci95: [0.05, 0.7] } },
  format_compliance: { n: 2, k: 2, value: 1, ci95: [0.34, 1] },
  code_pass: null,
  citation_correctness: null,
  refusal: { rate: { n: 2, k: 2, value: 1, ci95: [0.34, 1] }, over_refusal: { n: 2, k: 0, value: 0, ci95: [0, 0.66] } },
  success: { count: 8, per_s: 0.8, cost_per_success: 0.01 },
};

describe('history: quality columns', () => {
  it('come from result.json quality, and are NULL without it', () => {
    const results = tempDir('history-quality-row');
    const row = rowFromRunDir(results, runDir(results, 'q', QUALITY));
    expect(row).toMatchObject({
      accuracy: 0.8,
      accuracy_ci_low: 0.49,
      accuracy_ci_high: 0.943,
      hallucination_rate: 0.25,
      format_compliance: 1,
      code_pass_rate: null,
      refusal_rate: 1,
      over_refusal_rate: 0,
      successful_per_s: 0.8,
      cost_per_success: 0.01,
    });
    expect(JSON.parse(row.quality!)).toEqual(QUALITY);
    const plain = rowFromRunDir(results, runDir(results, 'p', undefined));
    expect(plain.accuracy).toBeNull();
    expect(plain.quality).toBeNull();
  });

  it('a history written before the columns existed gets them, then takes and lists quality rows', async () => {
    const results = tempDir('history-quality-upgrade');
    // The runs table as infermeter.history/1 first had it: every column up to infermeter_version.
    const old = RUN_COLUMNS.slice(0, RUN_COLUMNS.findIndex(([c]) => c === 'infermeter_version') + 1);
    const db = await DuckDBInstance.create(join(results, HISTORY_FILE), OFFLINE);
    const c = await db.connect();
    await c.run(`CREATE TABLE meta (key VARCHAR PRIMARY KEY, value VARCHAR)`);
    await c.run(`INSERT INTO meta VALUES ('schema', '${HISTORY_SCHEMA}')`);
    await c.run(`CREATE TABLE runs (${old.map(([n, t]) => `${n} ${t}`).join(', ')}, indexed_at TIMESTAMP DEFAULT current_timestamp)`);
    await c.run(`INSERT INTO runs (run_id, kind, dir, started_at, spec_hash) VALUES ('older', 'run', 'older', '2026-11-29 10:00:00', 'abc')`);
    c.closeSync();
    db.closeSync();
    // A read first: the file is upgraded in passing.
    const before = await listRuns(results);
    expect(before.map((r) => [r.run_id, r.accuracy])).toEqual([['older', null]]);
    expect(await indexRun(results, runDir(results, 'q', QUALITY))).toBeNull();
    const rows = await listRuns(results);
    expect(rows.map((r) => [r.run_id, r.accuracy, r.successful_per_s])).toEqual([
      ['q', 0.8, 0.8],
      ['older', null, null],
    ]);
  });
});
