/**
 * `sim validate` end to end, in virtual time: runs of a "server" whose cost parameters are hidden
 * (the simulator with a perturbed profile, saved by `sim run`) are replayed on the twin. With the
 * hidden profile the twin matches its own runs; with the defaults it misses by the amount the
 * hidden parameters imply; with --sim-profile the error bar lands in the profile file.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { twinErrorLine } from '../../src/cli/twin-error-text.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const profileYaml = (engine: Record<string, number>): string =>
  `kind: infermeter-sim-profile\nversion: 1\nhardware: h100\nmodel: llama-3.1-8b\nengine:\n${Object.entries(engine).map(([k, v]) => `  ${k}: ${v}`).join('\n')}\n`;
const load = (c: number, n: number): string[] => ['--concurrency', String(c), '--num-prompts', String(n), '--random-input-len', '512', '--random-output-len', '64', '--quiet'];
const errorOf = (stdout: string, level: number, figure: string): number => {
  const block = stdout.split(/\n(?=\S)/)[level]!;
  const m = new RegExp(`${figure}\\s.*error\\s+([+-][\\d.]+)%`).exec(block);
  return Number(m![1]) / 100;
};

describe('sim validate', () => {
  const dir = tempDir('validate');
  const hidden = join(dir, 'hidden.yaml');
  // The "real server": decode weight reads at 70% of the HBM peak instead of the default 80%.
  writeFileSync(hidden, profileYaml({ memory_efficiency: 0.7 }));
  const runs: string[] = [];

  it('prints per load level and figure how far the twin is: ~0 with the server\'s own parameters, the decode gap with the defaults', async () => {
    for (const [c, n] of [[1, 8], [8, 32]] as const) {
      const resultDir = join(dir, `runs-c${c}`);
      const out = await runCli(['sim', 'run', '--hardware', 'h100', '--sim-profile', hidden, ...load(c, n), '--result-dir', resultDir]);
      expect(out.code, out.stderr).toBe(0);
      runs.push(join(resultDir, readdirSync(resultDir).find((d) => existsSync(join(resultDir, d, 'records.jsonl')))!));
    }
    const self = await runCli(['sim', 'validate', ...runs, '--hardware', 'h100', '--model', 'llama-3.1-8b', '--sim-profile', hidden]);
    expect(self.code, self.stderr).toBe(0);
    expect(self.stdout).toMatch(/\(concurrency 1, 8 requests\):/);
    expect(self.stdout).toMatch(/\(concurrency 8, 32 requests\):/);
    for (const level of [0, 1]) for (const f of ['TTFT mean', 'TPOT mean', 'output tok/s']) expect(Math.abs(errorOf(self.stdout, level, f)), `${level} ${f}`).toBeLessThan(0.02);

    const dflt = await runCli(['sim', 'validate', ...runs, '--hardware', 'h100', '--model', 'llama-3.1-8b']);
    expect(dflt.code, dflt.stderr).toBe(0);
    // At concurrency 1 the decode step is the weight read: the twin at 0.8 is 0.7 / 0.8 − 1 = −12.5% on TPOT, less the fixed overheads.
    const tpot = errorOf(dflt.stdout, 0, 'TPOT mean');
    expect(tpot).toBeLessThan(-0.08);
    expect(tpot).toBeGreaterThan(-0.125);
    expect(dflt.stdout).toMatch(/error bar over 2 load level\(s\)/);
  }, 120_000);

  it('with --sim-profile records the error bar in the profile, which still loads', async () => {
    const prof = join(dir, 'default-profile.yaml');
    writeFileSync(prof, profileYaml({ memory_efficiency: 0.8 }));
    const out = await runCli(['sim', 'validate', ...runs, '--sim-profile', prof]);
    expect(out.code, out.stderr).toBe(0);
    const doc = parse(readFileSync(prof, 'utf8')) as { validation: { load_levels: string[]; error_bar: Record<string, { median_abs_error: number; max_abs_error: number }> } };
    expect(doc.validation.load_levels).toEqual(['concurrency 1', 'concurrency 8']);
    expect(doc.validation.error_bar['tpot_mean']!.median_abs_error).toBeGreaterThan(0.05);
    const again = await runCli(['sim', 'run', '--hardware', 'h100', '--sim-profile', prof, ...load(1, 2), '--no-save']);
    expect(again.code, again.stderr).toBe(0);
    // plan with the validated profile prints its error bar under the plan.
    const tpot = (doc.validation.error_bar['tpot_mean']!.median_abs_error * 100).toFixed(1);
    const p = await runCli(['plan', '--traffic', '5rps', '--sim-profile', prof, '--hardware', 'h100', '--model', 'llama-3.1-8b', '--random-input-len', '256', '--random-output-len', '32', '--probe-duration', '5s', '--precision', '25%', '--slo', 'p95(ttft) < 2s']);
    expect(p.code, p.stderr).toBe(0);
    expect(p.stdout).toContain(`simulator error bar (sim validate on 2 run(s), concurrency 1; concurrency 8): TTFT mean ±`);
    expect(p.stdout).toContain(`TPOT mean ±${tpot}%`);
  }, 120_000);

  it('a profile never validated, or no profile, is "unvalidated"', () => {
    const prof = join(dir, 'never.yaml');
    writeFileSync(prof, profileYaml({ memory_efficiency: 0.8 }));
    expect(twinErrorLine(prof)).toMatch(/^simulator error bar: unvalidated \(.*never\.yaml has no validation; run `infermeter sim validate/);
    expect(twinErrorLine(null)).toMatch(/^simulator error bar: unvalidated \(default parameters/);
  });

  it('bad input is one line and exit 2', async () => {
    const none = await runCli(['sim', 'validate', join(dir, 'nowhere'), '--hardware', 'h100', '--model', 'llama-3.1-8b']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/sim validate: .* is not a run directory/);
    const noHw = await runCli(['sim', 'validate', ...runs]);
    expect(noHw.code).toBe(2);
    expect(noHw.stderr).toMatch(/--hardware is required/);
  }, 60_000);
});
