/** The bounds before t = 0 as the commands meet them (issue 24): one line, exit 2, nothing started or written. */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { oneErrorLine as oneLine } from '../helpers/one-line.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('memory and disk bounds before t = 0', () => {
  it('run: a huge --num-prompts is refused before the simulator starts', async () => {
    const line = oneLine(await runCli(['run', '--num-prompts', '100000000', '--request-rate', '10', '--no-save']));
    expect(line).toMatch(/^error: load: 100,000,000 requests of up to 128 output tokens would hold ~381\.5 GiB of records in memory, beyond the [\d.]+ GiB this run may use \(75% of Node's heap limit\); give at most ~[\d,]+ requests/);
  });

  it('run: a rate over a duration counts as its requests', async () => {
    // 1,000 req/s × 30 days = 2,592,000,000 requests
    expect(oneLine(await runCli(['run', '--request-rate', '1000', '--duration', '720h', '--no-save']))).toMatch(/^error: load: 2,592,000,000 requests /);
  });

  it('sim run: a huge run is refused against the machine\'s memory', async () => {
    expect(oneLine(await runCli(['sim', 'run', '--num-prompts', '10000000000', '--no-save']))).toMatch(/^error: load: 10,000,000,000 requests .* \(50% of this machine's memory\)/);
  });

  it.skipIf(process.getuid?.() !== 0)('sim run into a results folder too small for its records: refused, nothing written', async () => {
    const dir = tempDir('room');
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', dir]);
    try {
      // 2,000 × (400 + 12 × 128) bytes = ~3.7 MiB, on 256 KiB
      const line = oneLine(await runCli(['sim', 'run', '--num-prompts', '2000', '--result-dir', join(dir, 'results')]));
      expect(line).toBe(`error: --result-dir ${join(dir, 'results')}: records.jsonl of 2,000 requests: ~4 MiB (estimated), but only 256 KiB is free there; free space, give another --result-dir, fewer requests, or --no-save`);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      execFileSync('umount', [dir]);
    }
  });
});
