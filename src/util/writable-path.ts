/** Whether a file could be written at `path`, asked before any work so a bad path fails first. */
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Null when `path` can be written (created or replaced), else why not, in a few words. */
export function unwritableReason(path: string): string | null {
  const full = resolve(path);
  if (existsSync(full) && statSync(full).isDirectory()) return 'is a directory; give a file path';
  try {
    accessSync(existsSync(full) ? full : dirname(full), constants.W_OK);
    return null;
  } catch (err) {
    return `cannot write there (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
  }
}
