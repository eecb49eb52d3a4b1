/**
 * A results folder that fills up mid-run in `sim run` and in a sweep (issue 24), handled as `run`
 * handles it (store/records-file.ts closeRecords, cli/print-run.ts diskFaultExit): the figures
 * are still computed, one line names the folder and what was kept, nothing more is written there,
 * exit 6. Needs a small tmpfs, which only root can mount: skipped otherwise.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/errors/exit-codes.js';
import { simulateRun } from '../../src/session/simulate.js';
import { RunSpecSchema } from '../../src/session/run-spec.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const root = process.getuid?.() === 0;
let mounted: string | null = null;
function smallDisk(size: string): string {
  const dir = tempDir('disk-fault-virtual');
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  mounted = dir;
  return dir;
}
afterEach(() => {
  if (mounted) execFileSync('umount', [mounted]);
  mounted = null;
});

const LINE = /^disk fault: ENOSPC writing (\S+): at least (\d+) of (\d+) records were saved there; the other (\d+) were kept in memory only, and the figures printed include them; (result|sweep)\.json and the report were not written to (\S+) \(free space there, or give another --result-dir\)$/;

describe.skipIf(!root)('disk faults in virtual time and sweeps', () => {
  it('sim run (the session, its free-space check told the disk has room): the line, the figures of every record, no result.json', async () => {
    const disk = smallDisk('256k');
    const spec = RunSpecSchema.parse({ load: { num_prompts: 2000, request_rate: 50 }, workload: { random_input_len: 16, random_output_len: 64 }, output: { result_dir: disk, progress: 'none' } });
    const done = await simulateRun(spec, { freeSpace: () => null });
    const m = LINE.exec(done.diskFault ?? '');
    expect(m, done.diskFault).not.toBeNull();
    expect(Number(m![3])).toBe(2000);
    expect(Number(m![2]) + Number(m![4])).toBe(2000);
    expect(m![5]).toBe('result');
    const [runDir] = readdirSync(disk);
    expect(m![1]).toBe(join(disk, runDir!, 'records.jsonl'));
    expect(readdirSync(join(disk, runDir!)).sort()).toEqual(['records.jsonl', 'spec.json']);
    expect(readFileSync(m![1]!, 'utf8').split('\n').filter((l) => l.endsWith('}')).length).toBeGreaterThanOrEqual(Number(m![2]));
    expect(done.result.metrics.requests.total).toBe(2000);
    expect(done.dir).toBeNull();
  });

  it('sim sweep --search (stage count unknown, one stage fits): exit 6 after the curve, one line naming sweep.json', async () => {
    const disk = smallDisk('640k');
    const out = await runCli([
      'sim', 'sweep', '--search', '--slo', 'p95(ttft) < 300ms', '--num-prompts', '200', '--random-input-len', '64', '--random-output-len', '128', '--result-dir', disk, '--progress', 'none',
    ]);
    expect(out.code, out.stderr).toBe(EXIT_CODES.DISK_FAULT);
    const lines = out.stderr.split('\n').filter((l) => l.startsWith('disk fault:'));
    expect(lines).toHaveLength(1);
    const m = LINE.exec(lines[0]!);
    expect(m, lines[0]).not.toBeNull();
    expect(m![5]).toBe('sweep');
    const [dir] = readdirSync(disk);
    expect(readdirSync(join(disk, dir!))).not.toContain('sweep.json');
    expect(out.stdout).toMatch(/stage/i);
    expect(out.stdout).not.toMatch(/Sweep directory:/);
  }, 120_000);
});
