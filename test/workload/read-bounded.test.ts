/** Dataset files are read within bounds: an endless or huge source is one clear error, not a 4.7 GB process. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_DATASET_BYTES, readBounded } from '../../src/workload/datasets/read-bounded.js';
import { bufferLines, JsonShapeError } from '../../src/workload/datasets/json-text.js';
import { readJsonl } from '../../src/workload/datasets/jsonl.js';
import { Issues } from '../../src/workload/datasets/entries.js';
import { UserError } from '../../src/errors/user-error.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('bounded dataset reading', () => {
  it('an endless device (/dev/zero) stops at the bound with one line', async () => {
    const err = await readBounded('/dev/zero', 'workload.dataset_path', 4 * 1024 * 1024).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toBe('workload.dataset_path: /dev/zero is larger than 4 MiB; take a sample of it (e.g. head -n 100000)');
  });

  it('a regular file over the bound is refused from its size, before reading', async () => {
    const p = join(tempDir('bounded'), 'big.jsonl');
    writeFileSync(p, 'x'.repeat(3 * 1024 * 1024));
    await expect(readBounded(p, 'workload.dataset_path', 1024 * 1024)).rejects.toThrow(/big\.jsonl is larger than 1 MiB/);
    expect((await readBounded(p, 'f', 4 * 1024 * 1024)).length).toBe(3 * 1024 * 1024);
    expect(MAX_DATASET_BYTES).toBe(1024 ** 3);
  });

  it('a missing file or a directory: cannot read, with the code', async () => {
    await expect(readBounded('/nonexistent/x.jsonl', 'workload.dataset_path')).rejects.toThrow('workload.dataset_path: cannot read /nonexistent/x.jsonl: ENOENT');
    await expect(readBounded(tempDir('bounded-dir'), 'workload.dataset_path')).rejects.toThrow(/EISDIR/);
  });

  it('a JSON Lines line longer than the bound is an error naming the line, not an "Invalid string length" crash', () => {
    const buf = Buffer.from(`{"prompt":"a"}\n${'y'.repeat(2048)}\n`);
    let err: unknown = null;
    try {
      for (const piece of bufferLines(buf, 1024)) expect(piece.line).toBe(1);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(JsonShapeError);
    expect((err as JsonShapeError).line).toBe(2);
  });

  it('readJsonl turns it into one line naming the file and line', async () => {
    const p = join(tempDir('bounded-line'), 'zeros.jsonl');
    writeFileSync(p, `{"prompt":"a"}\n${'\0'.repeat(65 * 1024 * 1024)}`);
    await expect(readJsonl(p, new Issues(p, () => {}))).rejects.toThrow(/zeros\.jsonl:2: .*a line longer than 64 MiB/);
  });
});
