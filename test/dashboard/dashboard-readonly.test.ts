/**
 * `dashboard` on a read-only results folder (issue 24): one line at start says it serves read-only
 * and why (the journal is not writable), it answers, and it stops on the signal — never hangs.
 * A read-only tmpfs needs root (mount): skipped otherwise. Waits on events, bounded by the test timeout.
 */
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { tempDir } from '../helpers/temp-dir.js';

const root = process.getuid?.() === 0;
let mounted: string | null = null;
afterEach(() => {
  if (mounted) execFileSync('umount', [mounted]);
  mounted = null;
});

describe.skipIf(!root)('dashboard on a read-only results folder', () => {
  it('says so in one line first, serves, and stops on the signal', async () => {
    const dir = tempDir('dash-ro');
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=64k', 'tmpfs', dir]);
    mounted = dir;
    let err = '';
    let url: (v: string) => void = () => {};
    const listening = new Promise<string>((r) => (url = r));
    const stderr = { write: (s: string) => ((err += s), /dashboard: (http:\/\/\S+)\/ /.test(err) && url(/dashboard: (http:\/\/\S+)\/ /.exec(err)![1]!), true) } as unknown as NodeJS.WritableStream;
    const stdout = { write: () => true } as unknown as NodeJS.WritableStream;
    const ac = new AbortController();
    const done = main(['dashboard', '--result-dir', dir, '--port', '0'], { stdout, stderr, env: {}, signal: ac.signal } as never);
    const base = await listening;
    const res = await fetch(`${base}/`, { signal: AbortSignal.timeout(30_000) });
    expect(res.status).toBe(200);
    ac.abort('SIGINT');
    expect(await done).toBe(0);
    const lines = err.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^infermeter dashboard: serving ${dir}/ read-only: the history journal there is not writable \\(cannot write there \\(EROFS\\)\\); runs, reports and history are shown as they are$`));
    expect(lines.filter((l) => l.includes('read-only'))).toHaveLength(1);
  }, 60_000);
});
