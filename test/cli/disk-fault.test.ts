/**
 * A results folder that fills up mid-run (issue 24): the run keeps measuring, prints its figures,
 * says in one line what was saved where, and exits DISK_FAULT (6). Needs a small tmpfs, which only
 * root can mount: skipped otherwise (the writer's own fault handling is tested on /dev/full in
 * test/store/records-writer.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import { EXIT_CODES } from '../../src/errors/exit-codes.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const root = process.getuid?.() === 0;
let mounted: string | null = null;

describe.skipIf(!root)('infermeter run with a results folder that fills up', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSimServer({ timing: { kind: 'fixed', prefillMs: 1, perTokenMs: 0.02 }, modelName: 'm1' });
    const dir = tempDir('disk-fault');
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', dir]);
    mounted = dir;
  });
  afterAll(async () => {
    await sim.close();
    if (mounted) execFileSync('umount', [mounted]);
  });

  it('exit 6, one line naming the folder and what was kept, the summary still on stdout', async () => {
    // Closed loop by time: its request count is not known up front, so the free-space check before
    // t = 0 (session/run-bounds.ts, which would refuse a counted run this size) lets it start.
    const out = await runCli([
      'run', '--base-url', sim.url, '--model', 'm1', '--concurrency', '16', '--duration', '2s', '--random-input-len', '8', '--random-output-len', '200',
      '--ignore-eos', '--result-dir', mounted!, '--progress', 'none', '--workers', '1', '--allow-invalid',
    ]);
    expect(out.code, out.stderr).toBe(EXIT_CODES.DISK_FAULT);
    const lines = out.stderr.split('\n').filter((l) => l.startsWith('disk fault:'));
    expect(lines).toHaveLength(1);
    const [runDir] = readdirSync(mounted!);
    const m = /^disk fault: ENOSPC writing (\S+): at least (\d+) of (\d+) records were saved there; the other (\d+) were kept in memory only, and the figures printed include them; result\.json and the report were not written to (\S+) \(free space there, or give another --result-dir\)$/.exec(lines[0]!);
    expect(m, lines[0]).not.toBeNull();
    expect(m![1]).toBe(join(mounted!, runDir!, 'records.jsonl'));
    const total = Number(m![3]);
    expect(Number(m![2]) + Number(m![4])).toBe(total);
    const onDisk = readFileSync(m![1]!, 'utf8').split('\n').filter((l) => l.endsWith('}')).length;
    expect(onDisk).toBeGreaterThanOrEqual(Number(m![2]));
    expect(onDisk).toBeLessThan(total);
    expect(readdirSync(join(mounted!, runDir!))).not.toContain('result.json');
    // Every record is in the figures, measured (after --duration) or cancelled at its end.
    expect(out.stdout).toMatch(new RegExp(`Requests: ${total} measured`));
  });
});
