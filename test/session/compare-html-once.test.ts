// compare --html draws each run's distributions from the records compare already read
// (session/compare-sides.ts keeps the bundles): the run folders are not read a second time.
import { readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { simulate } from '../../src/index.js';
import { compareRuns } from '../../src/session/compare-runs.js';
import { writeCompareOutputs } from '../../src/session/compare-outputs.js';
import { CompareOptionsSchema, parseCommandOptions } from '../../src/config/command-options.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('compare --html', () => {
  it('reads each run once: the report is drawn after the records files are gone', async () => {
    const root = tempDir('compare-html-once');
    for (const [name, seed] of [['a', 3], ['b', 4]] as const) {
      await simulate({ name, load: { num_prompts: 60, request_rate: 8, seed }, workload: { random_input_len: 64, random_output_len: 16 }, output: { result_dir: root, report: false } });
    }
    const [a, b] = ['a', 'b'].map((n) => join(root, readdirSync(root).find((d) => d.endsWith(`-${n}`))!)) as [string, string];
    const outcome = compareRuns([a, b], parseCommandOptions(CompareOptionsSchema, { resamples: 50 }));
    expect(outcome.result).not.toBeNull();
    // A second read would now fail (no records.jsonl) or draw no distribution.
    for (const d of [a, b]) renameSync(join(d, 'records.jsonl'), join(d, 'records.moved'));
    const html = join(root, 'compare.html');
    await writeCompareOutputs(outcome, [a, b], { junit: null, markdown: null, html }, {});
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('Distributions overlaid');
    expect(page).toContain(`A: ${a.split('/').pop()}`);
    expect(page).toContain(`B: ${b.split('/').pop()}`);
  });
});
