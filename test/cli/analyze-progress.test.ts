/** analyze says what it is doing when a run is long enough to take seconds, and stays quiet otherwise. */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('analyze progress lines', () => {
  it('a small run: no progress lines; a records file of 16 MiB or more: reading, count, done', async () => {
    const resultDir = tempDir('analyze-progress');
    const run = await runCli(['sim', 'run', '--num-prompts', '50', '--request-rate', '20', '--random-input-len', '64', '--random-output-len', '64', '--result-dir', resultDir]);
    expect(run.code, run.stderr).toBe(0);
    const runDir = join(resultDir, readdirSync(resultDir).find((d) => d.endsWith('-run'))!);
    const small = await runCli(['analyze', runDir]);
    expect(small.code, small.stderr).toBe(0);
    expect(small.stderr).not.toMatch(/^analyze:/m);

    // The same records repeated (ids renumbered) past the threshold: a long run as analyze sees it.
    const lines = readFileSync(join(runDir, 'records.jsonl'), 'utf8').trimEnd().split('\n');
    const out: string[] = [];
    let size = 0;
    for (let id = 0; size < 16 * 2 ** 20; id++) {
      const rec = JSON.parse(lines[id % lines.length]!) as { id: number };
      rec.id = id;
      const line = JSON.stringify(rec);
      out.push(line);
      size += line.length + 1;
    }
    writeFileSync(join(runDir, 'records.jsonl'), `${out.join('\n')}\n`);
    const big = await runCli(['analyze', runDir]);
    expect(big.code, big.stderr).toBe(0);
    const progress = big.stderr.split('\n').filter((l) => l.startsWith('analyze:'));
    expect(progress).toHaveLength(3);
    expect(progress[0]).toMatch(/^analyze: reading .*records\.jsonl \(16 MiB\)…$/);
    expect(progress[1]).toMatch(new RegExp(`^analyze: ${out.length.toLocaleString('en-US')} records read in \\d+\\.\\d s; computing figures…$`));
    expect(progress[2]).toMatch(/^analyze: done in \d+\.\d s$/);
  }, 120_000);
});
