/** Free space where files would be written: the nearest existing folder on the path (it may not exist yet). */
import { statfsSync } from 'node:fs';
import { existingAncestor } from '../util/writable-path.js';

/** Bytes an unprivileged process may still write under `path`, or null when the file system does not say (or states no blocks at all). */
export function freeSpace(path: string): number | null {
  try {
    const s = statfsSync(existingAncestor(path));
    // A file system of no blocks (/proc, sysfs) states no space at all: unknown, not full.
    return s.blocks > 0 ? s.bavail * s.bsize : null;
  } catch {
    return null;
  }
}
