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

/**
 * Null when files could be made in folder `dir` (made first if missing), else why not: the
 * nearest existing folder on its path must be a folder this process may write to. access(2)
 * says EROFS on a read-only mount, for root too.
 */
export function unwritableDirReason(dir: string): string | null {
  const p = existingAncestor(dir);
  try {
    if (!statSync(p).isDirectory()) return `${p} is not a folder`;
    accessSync(p, constants.W_OK);
    return null;
  } catch (err) {
    return `cannot write there (${(err as NodeJS.ErrnoException).code ?? String(err)}${p === resolve(dir) ? '' : ` in ${p}`})`;
  }
}

/** `path` itself when it exists, else its nearest ancestor that does (where mkdir -p would start). */
export function existingAncestor(path: string): string {
  let p = resolve(path);
  while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
  return p;
}
