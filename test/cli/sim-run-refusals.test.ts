import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { VIRTUAL_TIME_REFUSALS } from '../../src/cli/sim-run-refusals.js';
import { tempDir } from '../helpers/temp-dir.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const base = ['sim', 'run', '--no-save', '--num-prompts', '4', '--random-input-len', '16', '--random-output-len', '4'];

describe('sim run refuses settings that mean nothing in virtual time', () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['--grace', ['--duration', '10s', '--request-rate', '1', '--grace', '5s'], /does not cancel in-flight requests/],
    ['--workers', ['--workers', '2'], /no sending threads/],
    ['--preconnect', ['--preconnect', '8'], /opens no connections/],
    ['--busy-poll', ['--busy-poll'], /no timer wake-up delay/],
    ['--keep-text', ['--keep-text'], /token counts, not text/],
    ['--session-turns', ['--endpoint', '/v1/chat/completions', '--session-turns', '3'], /multi-turn sessions/],
    ['--think-time', ['--endpoint', '/v1/chat/completions', '--think-time', '1000'], /multi-turn sessions/],
    ['--sim-accuracy', ['--sim-accuracy', '0.9'], /not answers/],
    ['--sim-json-error-rate', ['--sim-json-error-rate', '0.1'], /not answers/],
    ['--sim-hallucination-rate', ['--sim-hallucination-rate', '0.1'], /not answers/],
    ['--sim-refusal-rate', ['--sim-refusal-rate', '0.1'], /not answers/],
  ];
  it('covers every refused flag', () => {
    expect(cases.map((c) => c[0]).sort()).toEqual(VIRTUAL_TIME_REFUSALS.map((r) => r.flag).sort());
  });
  for (const [flag, args, why] of cases) {
    it(`${flag}: one line naming the flag, exit 2`, async () => {
      const out = await runCli([...base, ...args]);
      expect(out.code).toBe(2);
      const lines = out.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^error: ${flag} has no meaning in sim run: `));
      expect(lines[0]).toMatch(why);
    });
  }

  it('a config file setting one is refused under its key', async () => {
    const dir = tempDir('sim-refusals');
    const cfg = join(dir, 'spec.yaml');
    writeFileSync(cfg, 'load:\n  workers: 2\n');
    const out = await runCli([...base, '--config', cfg]);
    expect(out.code).toBe(2);
    expect(out.stderr.trim()).toBe('error: load.workers (config) has no meaning in sim run: virtual time has no sending threads');
    writeFileSync(cfg, 'sim:\n  accuracy: 0.5\n');
    const answers = await runCli([...base, '--config', cfg]);
    expect(answers.code).toBe(2);
    expect(answers.stderr.trim()).toMatch(/^error: sim\.accuracy \(config\) has no meaning in sim run: the virtual engine generates token counts, not answers/);
  });

  it('the refused flags are hidden from sim run --help but remain in run --help', async () => {
    // Even with the rarely used flags shown (run's --busy-poll, --keep-text… are behind --help-all).
    const sim = await runCli(['sim', 'run', '--help-all']);
    const run = await runCli(['run', '--help-all']);
    for (const flag of ['--grace', '--workers', '--preconnect', '--busy-poll', '--keep-text']) {
      expect(sim.stdout).not.toContain(flag);
      expect(run.stdout).toContain(flag);
    }
  });
});
