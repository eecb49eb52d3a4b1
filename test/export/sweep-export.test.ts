/** `export` of a sweep directory: every stage's records, the per-stage figures, the sweep's Markdown summary. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeSweepFixture } from '../report/sweep-fixture.js';

describe('export of a sweep directory', () => {
  it('writes records.csv, summary.csv and summary.md from sweep.json and records.jsonl', async () => {
    const dir = await makeSweepFixture();
    const r = await runCli(['export', dir, '--format', 'csv,markdown']);
    expect(r.code, r.stderr).toBe(0);
    const records = readFileSync(join(dir, 'records.csv'), 'utf8').trim().split('\n');
    expect(records.length - 1).toBe(360); // 3 stages × 120 records
    const header = records[0]!.split(',');
    const stages = records.slice(1).map((l) => l.split(',')[header.indexOf('stage')]);
    expect(new Set(stages)).toEqual(new Set(['0', '1', '2']));
    const summary = readFileSync(join(dir, 'summary.csv'), 'utf8');
    expect(summary).toContain('stages.1.metrics.requests.total,120');
    expect(summary).toContain('stages.3.load.rate,60');
    const md = readFileSync(join(dir, 'summary.md'), 'utf8');
    expect(md).toContain('**saturation**: 60 (stage 3) — throughput stopped rising');
    expect(md).toMatch(/\| stage 2 \| 20 req\/s \| 120 \|/);
    expect(md).not.toContain('<script>');
  }, 60_000);
});
