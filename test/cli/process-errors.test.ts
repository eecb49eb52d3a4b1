/**
 * What reaches a user when something goes wrong outside the happy path: a closed pipe is not
 * an error, and an unexpected error is one line with a hint (the trace only with --debug).
 */
import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { EXIT_CODES } from '../../src/errors/exit-codes.js';
import { sink } from '../helpers/cli.js';

const ENTRY = new URL('../../src/cli/entry.ts', import.meta.url).pathname;

describe('a reader that closed the pipe (infermeter run --help | head)', () => {
  it('exits quietly with the command’s own code, no EPIPE trace', { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', ENTRY, 'run', '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy(); // the reader is gone before the first byte
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(stderr).toBe('');
    expect(code).toBe(EXIT_CODES.OK);
  });
});

describe('an unexpected error', () => {
  /** A stdout whose writes throw an error no command foresees. */
  const throwing = () => Object.assign(new Writable({ write: (_c, _e, cb) => cb() }), {
    write: () => {
      throw new Error('disk on fire\nsecond line');
    },
  });

  it('prints one line and a hint to rerun with --debug, exit 1', async () => {
    const stderr = sink();
    const code = await main(['schema'], { stdout: throwing(), stderr, env: {} });
    expect(code).toBe(EXIT_CODES.INTERNAL);
    expect(stderr.text).toBe('error: internal error: disk on fire (rerun with --debug for the trace)\n');
  });

  it('--debug prints the trace', async () => {
    const stderr = sink();
    const code = await main(['--debug', 'schema'], { stdout: throwing(), stderr, env: {} });
    expect(code).toBe(EXIT_CODES.INTERNAL);
    expect(stderr.text).toMatch(/^error: internal error \(--debug\):\nError: disk on fire/);
    expect(stderr.text).toMatch(/\n\s+at /);
  });
});
