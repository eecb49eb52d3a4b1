/**
 * A full or read-only results folder while a sweep writes spec.json or sweep.json (issue 24), as
 * a run's spec.json / result.json faults (test/cli/disk-fault-json.test.ts): one line naming the
 * file, the folder and what was kept, exit 6, the sweep's summary still printed, every stage
 * measured. The fault is injected at node:fs's writeFileSync for one file name.
 */
import * as fs from 'node:fs';
import type * as NodeFs from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EXIT_CODES } from '../../src/errors/exit-codes.js';
import type { SweepResult } from '../../src/sweep/sweep-result.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const fault: { file: string | null; code: string } = { file: null, code: 'ENOSPC' };
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof NodeFs>();
  const writeFileSync: typeof real.writeFileSync = (path, data, options) => {
    if (fault.file !== null && typeof path === 'string' && path.endsWith(`/${fault.file}`)) {
      throw Object.assign(new Error(`${fault.code}: injected, write '${path}'`), { code: fault.code });
    }
    return real.writeFileSync(path, data, options);
  };
  return { ...real, default: { ...real, writeFileSync }, writeFileSync };
});
afterEach(() => {
  fault.file = null;
  fault.code = 'ENOSPC';
});

// Two stages of 10 requests, the first 2 of each a warmup: 20 records in all, 8 measured a stage.
const SIM_SWEEP = ['sim', 'sweep', '--request-rates', '4,16', '--num-prompts', '10', '--stage-warmup', '2', '--random-input-len', '32', '--random-output-len', '8', '--progress', 'none'];
const dirOf = (root: string): string => join(root, fs.readdirSync(root).find((d) => !d.startsWith('.') && !d.startsWith('history'))!);
const faultLines = (stderr: string): string[] => stderr.split('\n').filter((l) => l.startsWith('disk fault:'));

describe('disk faults on a sweep’s spec.json and sweep.json', () => {
  it('sim sweep, sweep.json ENOSPC: exit 6, one line naming it and what was kept, the curve on stdout, records and spec kept', async () => {
    const root = tempDir('sweep-json-fault');
    fault.file = 'sweep.json';
    const out = await runCli([...SIM_SWEEP, '--result-dir', root]);
    expect(out.code, out.stderr).toBe(EXIT_CODES.DISK_FAULT);
    const dir = dirOf(root);
    const records = fs.readFileSync(join(dir, 'records.jsonl'), 'utf8').split('\n').filter((l) => l !== '').length;
    expect(faultLines(out.stderr)).toEqual([
      `disk fault: ENOSPC writing ${join(dir, 'sweep.json')}: records.jsonl (${records} records) and spec.json were saved in ${dir}; sweep.json and the report were not written there, and the figures printed are the sweep's (free space there, or give another --result-dir)`,
    ]);
    expect(records).toBe(20);
    expect(out.stderr).not.toMatch(/internal error/);
    expect(out.stdout).toContain('== infermeter sim sweep:');
    expect(out.stdout).not.toContain('Sweep directory:');
    expect(fs.readdirSync(dir).sort()).toEqual(['records.jsonl', 'spec.json']);
  });

  it('sim sweep --json, spec.json EROFS: exit 6, nothing saved, every stage in the JSON on stdout', async () => {
    const root = tempDir('sweep-json-fault');
    fault.file = 'spec.json';
    fault.code = 'EROFS';
    const out = await runCli([...SIM_SWEEP, '--json', '--result-dir', root]);
    expect(out.code, out.stderr).toBe(EXIT_CODES.DISK_FAULT);
    const dir = dirOf(root);
    const result = JSON.parse(out.stdout) as SweepResult;
    expect(result.stages.map((s) => s.metrics.requests.total)).toEqual([8, 8]);
    const lines = faultLines(out.stderr);
    expect(lines).toHaveLength(1);
    const m = new RegExp(`^disk fault: EROFS writing ${join(dir, 'spec.json')}: nothing was saved in ${dir}; the (\\d+) records were kept in memory only, and the figures printed include them \\(free space there, or give another --result-dir\\)$`).exec(lines[0]!);
    expect(m, lines[0]).not.toBeNull();
    // Every record the stages gave is counted, warmup included: 2 × 10.
    expect(Number(m![1])).toBe(20);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('sweep (built-in simulator over HTTP), sweep.json EACCES: exit 6, the line, the curve', async () => {
    const root = tempDir('sweep-json-fault');
    fault.file = 'sweep.json';
    fault.code = 'EACCES';
    const out = await runCli(['sweep', '--request-rates', '20,40', '--num-prompts', '8', '--random-input-len', '16', '--random-output-len', '4', '--progress', 'none', '--workers', '1', '--no-capacity-check', '--allow-invalid', '--result-dir', root]);
    expect(out.code, out.stderr).toBe(EXIT_CODES.DISK_FAULT);
    const dir = dirOf(root);
    expect(faultLines(out.stderr)).toEqual([expect.stringMatching(new RegExp(`^disk fault: EACCES writing ${join(dir, 'sweep.json')}: records\\.jsonl \\(16 records\\) and spec\\.json were saved in `))]);
    expect(out.stdout).toContain('== infermeter sweep:');
    expect(fs.existsSync(join(dir, 'sweep.json'))).toBe(false);
  }, 90_000);
});
