/**
 * The CLI as a child process (from src/, through tsx), with its output collected as it comes, for
 * tests that need several processes at once or must kill one. Waits are on events (a line
 * printed, a file written, the exit), never a fixed time.
 */
import { spawn, type ChildProcess } from 'node:child_process';

const ENTRY = new URL('../../src/cli/entry.ts', import.meta.url).pathname;

export interface CliProcess {
  child: ChildProcess;
  readonly stdout: string;
  readonly stderr: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves when stderr matches (rejects if the process exits first). */
  waitForStderr(pattern: RegExp): Promise<void>;
}

export function spawnCli(args: string[], env: NodeJS.ProcessEnv = {}): CliProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', ENTRY, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  const watchers: Array<{ pattern: RegExp; resolve: () => void }> = [];
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
    for (const w of watchers.splice(0)) {
      if (w.pattern.test(stderr)) w.resolve();
      else watchers.push(w);
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('exit', (code, signal) => r({ code, signal })));
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    exited,
    waitForStderr(pattern: RegExp) {
      if (pattern.test(stderr)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        watchers.push({ pattern, resolve });
        void exited.then((e) => reject(new Error(`exited (${e.code ?? e.signal}) before printing ${pattern}:\n${stderr}`)));
      });
    },
  };
}
