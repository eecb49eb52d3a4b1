/** What a command may touch of the outside world; tests pass their own. */
import { readFileSync } from 'node:fs';

export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WriteStream | (NodeJS.WritableStream & { isTTY?: boolean });
  env: NodeJS.ProcessEnv;
  /** Aborted on Ctrl-C: the run stops, keeps what it measured and still reports. */
  signal?: AbortSignal;
}

export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env };
}

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
