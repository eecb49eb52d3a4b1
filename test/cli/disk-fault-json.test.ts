/**
 * A full or read-only results folder while writing spec.json or result.json (issue 24): handled
 * like a records-file fault — one line naming the file, the folder and what was kept, exit 6 — and
 * the summary (or --json result) still printed to stdout. The fault is injected at node:fs's
 * writeFileSync for one file name (no real full disk needed).
 */
import * as fs from 'node:fs';
import type * as NodeFs from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EXIT_CODES } from '../../src/errors/exit-codes.js';
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
});

const SIM = ['sim', 'run', '--num-prompts', '40', '--request-rate', '20', '--random-input-len', '32', '--random-output-len', '8', '--progress', 'none'];
const runDirOf = (root: string): string => join(root, fs.readdirSync(root).find((d) => !d.startsWith('.') && !d.startsWith('history'))!);
const faultLines = (stderr: string): string[] => stderr.split('\n').filter((l) => l.startsWith('disk fault:'));

describe('disk faults on spec.json and result.json', () => {
  it('sim run, result.json ENOSPC: exit 6, one line naming it and what was kept, summary on stdout, records and spec kept', async () => {
    const root = tempDir('json-fault');
    fault.file = 'result.json';
    const out = await runCli([...SIM, '--result-dir', root]);
    expect(out.code, out.stderr).toBe(EXIT_CODES.DISK_FAULT);
    const dir = runDirOf(root);
    expect(faultLines(out.stderr)).toEqual([
      `disk fault: ENOSPC writing ${join(dir, 'result.json')}: records.jsonl (40 records) and spec.json were saved in ${dir}; result.json and the report were not written there, and the figures printed are the run's (free space there, or give another --result-dir)`,
    ]);
    expect(out.stderr).not.toMatch(/internal error/);
    expect(out.stdout).toContain('== infermeter sim run:');
    expect(out.stdout).toMatch(/Requests: 40 measured/);
    expect(fs.readdirSync(dir).sort()).toEqual(['records.jsonl', 'spec.json']);
  });

  it('sim run --json, spec.json EROFS: exit 6, nothing saved, the result JSON still on stdout', async () => {
    const root = tempDir('json-fault');
    fault.file = 'spec.json';
    fault.code = 'EROFS';
    const out = await runCli([...SIM, '--json', '--result-dir', root]);
    fault.code = 'ENOSPC';
    expect(out.code, out.stderr).toBe(EXIT_CODES.DISK_FAULT);
    const dir = runDirOf(root);
    expect(faultLines(out.stderr)).toEqual([
      `disk fault: EROFS writing ${join(dir, 'spec.json')}: nothing was saved in ${dir}; the 40 records were kept in memory only, and the figures printed include them (free space there, or give another --result-dir)`,
    ]);
    expect((JSON.parse(out.stdout) as { metrics: { requests: { total: number } } }).metrics.requests.total).toBe(40);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('run (built-in simulator over HTTP), result.json EACCES: exit 6, the line, the summary', async () => {
    const root = tempDir('json-fault');
    fault.file = 'result.json';
    fault.code = 'EACCES';
    const out = await runCli(['run', '--num-prompts', '20', '--request-rate', '50', '--random-input-len', '16', '--random-output-len', '4', '--progress', 'none', '--workers', '1', '--result-dir', root]);
    fault.code = 'ENOSPC';
    expect(out.code, out.stderr).toBe(EXIT_CODES.DISK_FAULT);
    const dir = runDirOf(root);
    expect(faultLines(out.stderr)).toEqual([expect.stringMatching(new RegExp(`^disk fault: EACCES writing ${join(dir, 'result.json')}: records\\.jsonl \\(20 records\\) and spec\\.json were saved in `))]);
    expect(out.stdout).toContain('== infermeter run:');
    expect(fs.existsSync(join(dir, 'result.json'))).toBe(false);
  }, 60_000);
});
