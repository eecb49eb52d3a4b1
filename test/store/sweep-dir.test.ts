import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isSweepDir } from '../../src/store/run-bundle.js';

// The one rule for "a sweep directory" (store/run-bundle.ts), used by analyze, compare, report,
// export, plan --from and the history: sweep.json and no result.json of its own.
describe('isSweepDir', () => {
  const root = mkdtempSync(join(tmpdir(), 'im-sweepdir-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const dir = (name: string, files: string[]): string => {
    const d = join(root, name);
    mkdirSync(d, { recursive: true });
    for (const f of files) {
      mkdirSync(join(d, f, '..'), { recursive: true });
      writeFileSync(join(d, f), '{}');
    }
    return d;
  };

  it('a sweep folder is one', () => {
    expect(isSweepDir(dir('sweep', ['sweep.json', 'spec.json', 'records.jsonl']))).toBe(true);
  });
  it('a run folder is not, even with a stray sweep.json beside its result.json', () => {
    expect(isSweepDir(dir('run', ['result.json', 'spec.json', 'records.jsonl']))).toBe(false);
    expect(isSweepDir(dir('run-and-sweep', ['result.json', 'sweep.json']))).toBe(false);
  });
  it('a repeats folder is not', () => {
    expect(isSweepDir(dir('repeats', ['repeats.json', 'repeat-1/result.json', 'repeat-2/result.json']))).toBe(false);
  });
  it('an empty folder, a missing one and a file are not', () => {
    expect(isSweepDir(dir('empty', []))).toBe(false);
    expect(isSweepDir(join(root, 'missing'))).toBe(false);
    expect(isSweepDir(join(dir('file-holder', ['sweep.json']), 'sweep.json'))).toBe(false);
  });
});
