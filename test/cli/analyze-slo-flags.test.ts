/** A malformed SLO given to `analyze` is named as such, whatever the path (issue 24): one line, exit 2. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { oneErrorLine as oneLine } from '../helpers/one-line.js';
import { tempDir } from '../helpers/temp-dir.js';

let runDir: string;
beforeAll(async () => {
  const results = tempDir('analyze-slo');
  const out = await runCli(['sim', 'run', '--num-prompts', '10', '--random-input-len', '32', '--random-output-len', '4', '--result-dir', results, '--name', 'a', '--json']);
  expect(out.code, out.stderr).toBe(0);
  runDir = join(results, readdirSync(results).find((d) => d.endsWith('-a'))!);
}, 60_000);

describe('analyze --slo', () => {
  it('a malformed SLO with a path that does not exist names the SLO, not the path', async () => {
    const line = oneLine(await runCli(['analyze', join(runDir, 'no-such'), '--slo', 'p95(ttft) <']));
    expect(line).toBe('error: --slo: "p95(ttft) <": no threshold after the comparison');
  });

  it('the run directory after a --slo list is taken back as the run', async () => {
    const out = await runCli(['analyze', '--slo', 'p95(ttft) < 100s', runDir, '--json']);
    expect(out.code, out.stderr).toBe(0);
    expect((JSON.parse(out.stdout) as { slos: Array<{ slo: string }> }).slos.map((s) => s.slo)).toEqual(['p95(ttft) < 100s']);
  });

  it('a malformed SLO before the run directory: one line naming the SLO', async () => {
    expect(oneLine(await runCli(['analyze', '--slo', 'garbage', runDir]))).toMatch(/^error: --slo: "garbage": no comparison/);
  });

  it('no run at all: one line saying what to give', async () => {
    expect(oneLine(await runCli(['analyze', '--slo', 'p95(ttft) < 1s']))).toMatch(/^error: analyze: give the run directory/);
  });
});
