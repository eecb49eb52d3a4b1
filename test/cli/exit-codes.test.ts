/** The exit-code table has one source (errors/exit-codes.ts); README and every --help repeat it. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXIT_CODE_HELP, EXIT_CODES } from '../../src/errors/exit-codes.js';
import { runCli } from '../helpers/cli.js';

/** Every command path of the CLI, from the root's help (`infermeter`, `infermeter sim run`, …). */
async function commandPaths(prefix: string[] = []): Promise<string[][]> {
  const help = (await runCli([...prefix, '--help'])).stdout;
  const section = help.split(/\nCommands:\n/)[1]?.split('\n\n')[0] ?? '';
  const subs = section
    .split('\n')
    .map((l) => /^ {2}(\w[\w-]*)/.exec(l)?.[1])
    .filter((c): c is string => c !== undefined && c !== 'help');
  const out = [prefix];
  for (const c of subs) out.push(...(await commandPaths([...prefix, c])));
  return out;
}

describe('exit codes', () => {
  it('the help table names every code of EXIT_CODES', () => {
    for (const code of Object.values(EXIT_CODES)) expect(EXIT_CODE_HELP, String(code)).toMatch(new RegExp(`(^|\\n| |, )${code}\\b`));
  });

  it('README §Exit codes holds the table as it is', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## Exit codes'));
    expect(section).toContain(EXIT_CODE_HELP);
  });

  it('every command’s --help ends with the table', async () => {
    const paths = await commandPaths();
    expect(paths.map((p) => p.join(' '))).toEqual(expect.arrayContaining(['', 'run', 'analyze', 'schema', 'sim', 'sim run', 'sim serve']));
    for (const p of paths) {
      const out = await runCli([...p, '--help']);
      expect(out.code).toBe(0);
      expect(out.stdout.trimEnd().endsWith(EXIT_CODE_HELP), `infermeter ${p.join(' ')} --help`).toBe(true);
    }
  });
});
