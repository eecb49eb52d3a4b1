/**
 * Reading a dataset file within bounds: a path to something endless (`/dev/zero`, a pipe that never
 * closes) or far too large is refused with one line instead of growing until the process dies.
 */
import { open } from 'node:fs/promises';
import { UserError } from '../../errors/user-error.js';

/** Larger than any dataset we know of (ShareGPT's is ~650 MB); a bigger file is better sampled first. */
export const MAX_DATASET_BYTES = 1024 ** 3;
/** One JSON Lines record: far beyond any prompt, far below V8's longest string (~2^29 characters). */
export const MAX_LINE_BYTES = 64 * 1024 ** 2;

const mib = (n: number) => `${Math.round(n / 1024 ** 2)} MiB`;

export async function readBounded(path: string, field: string, maxBytes = MAX_DATASET_BYTES): Promise<Buffer> {
  const tooBig = () => new UserError(`${field}: ${path} is larger than ${mib(maxBytes)}; take a sample of it (e.g. head -n 100000)`);
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    throw new UserError(`${field}: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    const st = await fh.stat();
    if (st.isDirectory()) throw new UserError(`${field}: cannot read ${path}: EISDIR`);
    if (st.isFile()) {
      if (st.size > maxBytes) throw tooBig();
      return await fh.readFile();
    }
    // A device or a pipe: its size is not known ahead, so count while reading.
    const chunks: Buffer[] = [];
    let total = 0;
    const buf = Buffer.allocUnsafe(1024 * 1024);
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) throw tooBig();
      chunks.push(Buffer.from(buf.subarray(0, bytesRead)));
    }
    return Buffer.concat(chunks, total);
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError(`${field}: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  } finally {
    await fh.close();
  }
}
