/** This package's version (package.json): named in every result and report, and in the simulator's info series. */
import { readFileSync } from 'node:fs';

let version: string | null = null;
export function infermeterVersion(): string {
  if (version === null) {
    try {
      version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
    } catch {
      version = 'unknown';
    }
  }
  return version;
}
