/**
 * A distributed run whose results folder fills up mid-run (issue 24): the coordinator handles it
 * as `run` does — figures printed from the records it collected, one line naming the folder and
 * what was kept, exit 6. Needs a small tmpfs (root) and nats-server.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/errors/exit-codes.js';
import { runCli } from '../helpers/cli.js';
import { spawnCli } from '../helpers/cli-process.js';
import { startNats, type NatsServer } from '../helpers/nats.js';
import { tempDir } from '../helpers/temp-dir.js';

const root = process.getuid?.() === 0;

describe.skipIf(!root)('run --distributed with a results folder that fills up', () => {
  let nats: NatsServer;
  let disk: string | null = null;
  beforeAll(async () => {
    nats = await startNats();
    disk = tempDir('dist-disk');
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=128k', 'tmpfs', disk]);
  });
  afterAll(async () => {
    await nats?.close();
    if (disk) execFileSync('umount', [disk]);
  });

  it('exit 6, one disk-fault line, the summary still printed', async () => {
    // Closed loop by time: no count up front, so the free-space check before t = 0 lets it start.
    const load = ['--concurrency', '4', '--duration', '2s', '--random-input-len', '8', '--random-output-len', '200', '--ignore-eos', '--sim-prefill-ms', '1', '--sim-per-token-ms', '0.02', '--progress', 'none', '--allow-invalid'];
    const coordinator = runCli(['run', '--distributed', nats.url, '--workers-expected', '1', '--run-id', 'disk', '--start-delay', '1s', ...load, '--result-dir', disk!]);
    const worker = spawnCli(['worker', '--nats', nats.url, '--run-id', 'disk', '--index', '0', '--wait', '60s', ...load]);
    const out = await coordinator;
    await worker.exited;
    expect(out.code, out.stderr).toBe(EXIT_CODES.DISK_FAULT);
    const lines = out.stderr.split('\n').filter((l) => l.startsWith('disk fault:'));
    expect(lines).toHaveLength(1);
    const [dir] = readdirSync(disk!).filter((d) => !d.startsWith('.'));
    expect(lines[0]).toMatch(new RegExp(`^disk fault: ENOSPC writing ${join(disk!, dir!, 'records.jsonl')}: at least \\d+ of (\\d+) records were saved there; .*result\\.json and the report were not written to ${join(disk!, dir!)} `));
    expect(readdirSync(join(disk!, dir!))).not.toContain('result.json');
    expect(out.stdout).toMatch(/Requests: \d+ measured/);
  }, 90_000);
});
