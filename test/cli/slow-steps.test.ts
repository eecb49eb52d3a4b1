/**
 * Progress lines for the slow steps before t = 0 (slow-steps.ts): a dataset file of 16 MiB or
 * more is announced before it is read and timed after, and so is the load workers' preparation
 * (each reads the dataset again, or opens 256+ connections); a small dataset prints neither.
 */
import { closeSync, openSync, writeFileSync, ftruncateSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bigDatasetBytes, SLOW_DATASET_BYTES, workerPreparation } from '../../src/session/slow-steps.js';
import { WorkloadSpecSchema } from '../../src/workload/spec.js';
import { expectCompleted, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const spec = (path: string | null) => WorkloadSpecSchema.parse({ dataset_name: 'jsonl', dataset_path: path });

describe('slow steps (unit)', () => {
  it('a dataset is big from 16 MiB; the workers line names what takes long', () => {
    const dir = tempDir('slow-steps');
    const big = join(dir, 'big.jsonl');
    // A sparse file: its size is what counts, no 16 MiB written.
    const fd = openSync(big, 'w');
    ftruncateSync(fd, SLOW_DATASET_BYTES);
    closeSync(fd);
    const small = join(dir, 'small.jsonl');
    writeFileSync(small, '{"prompt": "hi"}\n');
    expect(bigDatasetBytes(spec(big))).toBe(16 * 2 ** 20);
    expect(bigDatasetBytes(spec(small))).toBeNull();
    expect(bigDatasetBytes(spec(dir))).toBeNull();
    expect(bigDatasetBytes(spec(join(dir, 'missing.jsonl')))).toBeNull();
    expect(bigDatasetBytes(spec(null))).toBeNull();

    expect(workerPreparation(spec(big), 1, 8)).toBe('load: preparing before t = 0: the load worker reads the dataset again (16 MiB)…');
    expect(workerPreparation(spec(big), 3, 256)).toBe('load: preparing before t = 0: each of 3 load workers reads the dataset again (16 MiB) and opens its share of 256 connections…');
    expect(workerPreparation(spec(small), 0, 300)).toBe('load: preparing before t = 0: the load, on this thread, opens its share of 300 connections…');
    expect(workerPreparation(spec(small), 1, 255)).toBeNull();
  });
});

describe('run: progress lines before t = 0', () => {
  it('a 16 MiB dataset: read, then the worker preparing, each announced and timed; a small one: neither', async () => {
    const dir = tempDir('slow-steps-run');
    const path = join(dir, 'big.jsonl');
    // 16 MiB and a little of real JSONL lines (about 33,000 prompts of ~500 characters).
    const line = `${JSON.stringify({ prompt: 'the quick brown fox jumps over the lazy dog '.repeat(11).trim(), max_tokens: 2 })}\n`;
    writeFileSync(path, line.repeat(Math.ceil(SLOW_DATASET_BYTES / line.length) + 1));
    const args = ['run', '--dataset-name', 'jsonl', '--num-prompts', '3', '--request-rate', '50', '--workers', '1', '--no-save', '--progress', 'lines', '--allow-invalid'];
    const out = await runCli([...args, '--dataset-path', path]);
    expectCompleted(out);
    const lines = out.stderr.split('\n');
    const at = (re: RegExp) => lines.findIndex((l) => re.test(l));
    const reading = at(/^workload: reading .*big\.jsonl \(16 MiB\)…$/);
    const read = at(/^workload: read in \d+\.\d s$/);
    const preparing = at(/^load: preparing before t = 0: the load worker reads the dataset again \(16 MiB\)…$/);
    const ready = at(/^load: ready in \d+\.\d s; t = 0$/);
    expect([reading, read, preparing, ready].every((i) => i >= 0), out.stderr).toBe(true);
    expect(reading < read && read < preparing && preparing < ready).toBe(true);

    const small = join(dir, 'small.jsonl');
    writeFileSync(small, line.repeat(5));
    const quiet = await runCli([...args, '--dataset-path', small]);
    expectCompleted(quiet);
    expect(quiet.stderr).not.toMatch(/workload: reading|load: preparing|load: ready/);
  }, 60_000);
});
