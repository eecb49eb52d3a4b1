/**
 * Commands that used to wait or serve forever on a bad folder or an absent NATS (issue 24): each
 * refuses up front in one line (exit 2), or says what it waits for and gives up within its bound.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A 127.0.0.1 port nothing listens on (bound once, then closed). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

const errorLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('error: '));

describe('bounded waits and folders refused up front', () => {
  it('worker against an unreachable NATS: says what it waits for, then one error line within --wait (a wait of 2 s and more says so), exit 2', async () => {
    const url = `nats://127.0.0.1:${await closedPort()}`;
    const out = await runCli(['worker', '--nats', url, '--index', '0', '--wait', '3s', '--num-prompts', '10', '--random-input-len', '8', '--random-output-len', '4']);
    expect(out.code, out.stderr).toBe(2);
    const lines = out.stderr.trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^--nats ${url}: waiting for NATS \\(connection refused\\), [\\d.]+ s of 3 s \\(--wait\\)$`));
    expect(errorLines(out.stderr)).toHaveLength(1);
    expect(lines.at(-1)).toMatch(new RegExp(`^error: --nats ${url}: cannot connect to NATS within 3 s \\(.+\\); is nats-server running there\\? \\(--wait sets how long to wait\\)$`));
  }, 30_000);

  it('dashboard with a results folder that does not exist: exit 2 before it listens', async () => {
    const missing = join(tempDir('dash-missing'), 'nope');
    const out = await runCli(['dashboard', '--results-dir', missing, '--port', '0']);
    expect(out.code).toBe(2);
    expect(out.stderr.trim()).toBe(`error: --result-dir ${missing}: no such folder (give the folder that holds the run directories and history.duckdb)`);
  });

  it('export to an --out-dir that cannot be made: refused before the run is read', async () => {
    const dir = tempDir('export-outdir');
    writeFileSync(join(dir, 'file'), '');
    // The run does not exist either: the folder is looked at first.
    const out = await runCli(['export', join(dir, 'no-run'), '--format', 'csv', '--out-dir', join(dir, 'file', 'sub')]);
    expect(out.code).toBe(2);
    expect(out.stderr.trim()).toBe(`error: --out-dir ${join(dir, 'file', 'sub')}: ${join(dir, 'file')} is not a folder`);
  });

  it.skipIf(process.getuid?.() !== 0)('export into a read-only folder (a read-only mount, so root too): refused up front, exit 2', async () => {
    const dir = tempDir('export-ro');
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k,ro', 'tmpfs', dir]);
    try {
      const out = await runCli(['export', join(dir, 'no-run'), '--format', 'csv', '--out-dir', dir]);
      expect(out.code).toBe(2);
      expect(out.stderr.trim()).toBe(`error: --out-dir ${dir}: cannot write there (EROFS)`);
    } finally {
      execFileSync('umount', [dir]);
    }
  });
});
