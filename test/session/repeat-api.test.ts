/** `runRepeated` as a library call: repeat directories from the package API, nothing printed. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRepeated, UserError } from '../../src/index.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('runRepeated', () => {
  it('runs the spec N times in virtual time and returns repeats.json with each result', async () => {
    const dir = tempDir('repeat-api');
    const lines: string[] = [];
    const out = await runRepeated({ load: { request_rate: 8, num_prompts: 40, seed: 5 }, output: { result_dir: dir } }, 2, { virtual: true, onLog: (l) => lines.push(l) });
    expect(out.repeats.runs.map((r) => r.seed)).toEqual([5, 6]);
    expect(out.results.map((r) => r.run.id)).toEqual(out.repeats.runs.map((r) => r.run_id));
    expect(JSON.parse(readFileSync(join(out.dir, 'repeats.json'), 'utf8'))).toEqual(out.repeats);
    expect(existsSync(join(out.dir, 'repeat-2', 'result.json'))).toBe(true);
    expect(lines.filter((l) => /^repeat \d\/2: valid, TTFT p99/.test(l))).toHaveLength(2);
    await expect(runRepeated({}, 0, { virtual: true })).rejects.toThrow(UserError);
  });
});
