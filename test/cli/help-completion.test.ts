/** Grouped --help with the rarely used flags behind --help-all, and shell completion generated from the commands (issue 24). */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const TOP = ['run', 'worker', 'analyze', 'compare', 'report', 'export', 'plan', 'schema', 'watch', 'history', 'trend', 'sql', 'dashboard', 'sweep', 'sim', 'k8s', 'completion'];

describe('--help and --help-all', () => {
  it('run --help: headings, the common flags, a pointer to --help-all; --help-all adds the rest', async () => {
    const help = (await runCli(['run', '--help'])).stdout;
    const all = (await runCli(['run', '--help-all'])).stdout;
    for (const heading of ['Target:', 'Load:', 'Workload:', 'Output:', 'Validity:', 'Built-in simulator (no --base-url):']) expect(help).toContain(`\n${heading}\n`);
    for (const flag of ['--base-url', '--request-rate', '--num-prompts', '--random-input-len', '--result-dir', '--slo']) expect(help).toContain(flag);
    for (const flag of ['--busy-poll', '--max-num-batched-tokens', '--metric-percentiles', '--prefix-repetition-suffix-len']) {
      expect(help).not.toContain(flag);
      expect(all).toContain(flag);
    }
    expect(help).toMatch(/\n\d+ more flags \(simulator engine, timing, output shaping, dataset variants\): infermeter run --help-all\n/);
    expect(all).not.toContain('--help-all\n\nExit codes');
    // Flags, not lines: commander stops wrapping descriptions when its flag column is wide (vLLM's
    // --random-mm-* names), so the two outputs' line counts can wrap differently.
    const flags = (text: string): number => (text.match(/^ {2}-/gm) ?? []).length;
    expect(flags(help)).toBeLessThan(flags(all) * 0.6);
  });

  it('one results-folder flag: --result-dir everywhere; history\'s old --results-dir is a hidden alias', async () => {
    for (const cmd of [['run'], ['sweep'], ['sim', 'run'], ['history'], ['trend'], ['sql'], ['dashboard']]) {
      const help = (await runCli([...cmd, '--help-all'])).stdout;
      expect(help, cmd.join(' ')).toContain('--result-dir <dir>');
      expect(help, cmd.join(' ')).not.toContain('--results-dir');
    }
    const results = tempDir('result-dir');
    expect((await runCli(['sim', 'run', '--num-prompts', '3', '--random-input-len', '8', '--random-output-len', '2', '--result-dir', results, '--name', 'x'])).code).toBe(0);
    for (const flag of ['--result-dir', '--results-dir']) {
      const out = await runCli(['history', flag, results, '--json']);
      expect(out.code, out.stderr).toBe(0);
      expect((JSON.parse(out.stdout) as Array<{ name: string }>).map((r) => r.name)).toEqual(['x']);
    }
  });

  it('a hidden flag still works', async () => {
    const out = await runCli(['sim', 'run', '--num-prompts', '5', '--random-input-len', '8', '--random-output-len', '2', '--max-num-seqs', '2', '--no-save', '--json']);
    expect(out.code, out.stderr).toBe(0);
  });
});

describe('infermeter completion', () => {
  it('bash: parses with bash -n, lists every command, and completes a subcommand\'s flags', async () => {
    const out = await runCli(['completion', 'bash']);
    expect(out.code).toBe(0);
    const file = join(tempDir('completion'), 'infermeter.bash');
    writeFileSync(file, out.stdout);
    execFileSync('bash', ['-n', file]);
    const complete = (words: string[]) =>
      execFileSync('bash', ['-c', `source ${file}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _infermeter; printf '%s\\n' "\${COMPREPLY[@]}"`], { encoding: 'utf8' }).trim().split('\n');
    expect(complete(['infermeter', ''])).toEqual(expect.arrayContaining(TOP));
    expect(complete(['infermeter', 'sim', ''])).toEqual(expect.arrayContaining(['run', 'sweep', 'serve', 'calibrate', 'validate']));
    expect(complete(['infermeter', 'run', '--base'])).toEqual(['--base-url']);
    // sim run's refused flags are not offered; its rarely used ones are.
    const simRun = complete(['infermeter', 'sim', 'run', '--']);
    expect(simRun).toContain('--max-num-seqs');
    expect(simRun).not.toContain('--busy-poll');
    expect(complete(['infermeter', 'history', '--re'])).toEqual(expect.arrayContaining(['--reindex']));
  });

  it('zsh (through bashcompinit) parses as shell; fish names every command', async () => {
    const zsh = (await runCli(['completion', 'zsh'])).stdout;
    expect(zsh).toContain('bashcompinit');
    const file = join(tempDir('completion-zsh'), 'infermeter.zsh');
    writeFileSync(file, zsh);
    execFileSync('bash', ['-n', file]);
    const fish = (await runCli(['completion', 'fish'])).stdout;
    expect(fish).toContain(`complete -c infermeter -n '__fish_use_subcommand' -a '${TOP.join(' ')}'`);
    expect(fish).toMatch(/^complete -c infermeter -n '__fish_seen_subcommand_from sim; and __fish_seen_subcommand_from run' -l max-num-seqs -d /m);
  });

  it('another shell: one line, exit 2', async () => {
    const out = await runCli(['completion', 'tcsh']);
    expect(out.code).toBe(2);
    expect(out.stderr.trim()).toBe('error: completion: expected one of bash, zsh, fish, got "tcsh"');
  });
});
