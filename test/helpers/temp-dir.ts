/**
 * Temporary directories for tests, removed when the test file ends (see cleanup-setup.ts, which
 * vitest loads before every test file). Every test that needs a scratch directory takes it here,
 * so a full run leaves nothing behind in the temp folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const created: string[] = [];

/** A new empty directory `<tmp>/infermeter-<label>-XXXXXX`, removed after the test file. */
export function tempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `infermeter-${label}-`));
  created.push(dir);
  return dir;
}

/** Removes every directory made by tempDir() so far. */
export function removeTempDirs(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}
