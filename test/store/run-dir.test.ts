import { spawnSync } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRunDir, makeDirs } from '../../src/store/run-dir.js';
import { UserError } from '../../src/errors/user-error.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('makeDirs', () => {
  it('creates every missing level, and accepts what exists', () => {
    const root = tempDir('mkdirs');
    const deep = join(root, 'a', 'b', 'c');
    makeDirs(deep);
    expect(statSync(deep).isDirectory()).toBe(true);
    makeDirs(deep);
    makeDirs(root);
  });

  it('fails with the error code under a file', () => {
    const root = tempDir('mkdirs');
    writeFileSync(join(root, 'file'), '');
    expect(() => makeDirs(join(root, 'file', 'sub'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
  });
});

describe('createRunDir', () => {
  it('names a second run of the same second with a suffix', () => {
    const root = tempDir('rundir');
    const at = new Date(2026, 0, 2, 3, 4, 5);
    const a = createRunDir(join(root, 'results'), 'x', at);
    const b = createRunDir(join(root, 'results'), 'x', at);
    expect(a.id).toBe('20260102-030405-x');
    expect(b.id).toBe('20260102-030405-x-2');
    expect(existsSync(b.path)).toBe(true);
  });

  it('an impossible --result-dir is one line naming the flag and the reason', () => {
    const root = tempDir('rundir');
    writeFileSync(join(root, 'file'), '');
    expect(() => createRunDir(join(root, 'file', 'results'), 'x', new Date())).toThrow(UserError);
    expect(() => createRunDir(join(root, 'file', 'results'), 'x', new Date())).toThrow(/^--result-dir .*: cannot create the run directory \(ENOTDIR: not a directory\)$/);
  });

  // Node's recursive mkdir spins forever under /proc: run the CLI in a child so a regression is a
  // failed test, not a hung test run.
  it.runIf(existsSync('/proc/self'))('--result-dir /proc/nope: exit 2 with one line, not a hang', () => {
    const script = `
      import { main } from './src/cli/main.ts';
      process.exitCode = await main(['run', '--result-dir', '/proc/nope', '--num-prompts', '2', '--progress', 'none']);
    `;
    const out = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 100_000 });
    expect(out.signal, 'still running after 100 s').toBeNull();
    expect(out.status).toBe(2);
    const errors = out.stderr.split('\n').filter((l) => l.startsWith('error:'));
    expect(errors).toEqual(['error: --result-dir /proc/nope: cannot create the run directory (ENOENT: no such file or directory)']);
    expect(out.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });
});
