/**
 * Running untrusted JavaScript for a code check (docs/quality.md §Code checks, isolation and limits).
 * One fresh `node` process per check:
 *  - cwd is a new scratch directory, removed afterwards;
 *  - the environment is empty (no credentials, tokens or proxies are inherited);
 *  - Node's permission model (--experimental-permission) allows reading and writing only the
 *    scratch directory, and forbids child processes, worker threads, native addons and WASI;
 *  - a preload replaces the network modules, fetch and process.binding with throwing stubs, and
 *    when `unshare -n` works (root or user namespaces) the process also runs in an empty network
 *    namespace, so even a bypass of the stubs reaches no interface but a down loopback;
 *  - the JS heap is capped (--max-old-space-size), and where `prlimit` exists so are the address
 *    space, file sizes and core dumps;
 *  - a wall-clock time limit kills the whole process group (SIGKILL).
 * At most MAX_PARALLEL checks run at once; further ones wait their turn.
 */
import { spawn, spawnSync } from 'node:child_process';
import { setPriority } from 'node:os';
import { existsSync } from 'node:fs';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NO_NETWORK_PRELOAD, harnessSource } from './code-harness.js';

export const MAX_PARALLEL = 2;
export const DEFAULT_TIMEOUT_MS = 10_000;
export const HEAP_MB = 128;
const ADDRESS_SPACE_BYTES = 2 * 1024 ** 3; // V8 reserves far more than it uses; 2 GiB still starts
const FILE_SIZE_BYTES = 16 * 1024 ** 2;
const OUTPUT_LIMIT = 8 * 1024;

export interface SandboxResult {
  /** Exit code, or null when killed by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

export interface SandboxInput {
  solution: string;
  tests: string;
  entry?: string;
  timeoutMs?: number;
}

/** The niceness of a code check's process: the lowest priority (POSIX nice 19). */
export const CHECK_NICENESS = 19;

let probe: { unshare: string | null; prlimit: string | null } | undefined;

function findTool(name: string): string | null {
  return ['/usr/bin/', '/bin/', '/usr/sbin/', '/sbin/'].map((d) => d + name).find((p) => existsSync(p)) ?? null;
}

/** Which OS-level tools this machine lets us use; probed once (unshare -n needs privileges). */
export function isolationTools(): { unshare: string | null; prlimit: string | null } {
  if (probe === undefined) {
    const unshare = findTool('unshare');
    const works = unshare !== null && spawnSync(unshare, ['-n', 'true'], { stdio: 'ignore', env: {}, timeout: 5000 }).status === 0;
    probe = { unshare: works ? unshare : null, prlimit: findTool('prlimit') };
  }
  return probe;
}

let running = 0;
const waiting: (() => void)[] = [];

async function slot(): Promise<() => void> {
  if (running >= MAX_PARALLEL) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  return () => {
    running--;
    waiting.shift()?.();
  };
}

/** Run `solution` then `tests` in a fresh, isolated node process (see the module comment). */
export async function runSandboxed(input: SandboxInput): Promise<SandboxResult> {
  const release = await slot();
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'infermeter-code-')));
  try {
    await Promise.all([
      writeFile(join(dir, 'solution.js'), input.solution),
      writeFile(join(dir, 'tests.js'), input.tests),
      writeFile(join(dir, 'harness.cjs'), harnessSource(input.entry)),
      writeFile(join(dir, 'no-network.cjs'), NO_NETWORK_PRELOAD),
    ]);
    return await runIn(dir, input.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  } finally {
    await rm(dir, { recursive: true, force: true });
    release();
  }
}

function command(dir: string): string[] {
  const tools = isolationTools();
  const node = [
    process.execPath,
    '--experimental-permission',
    `--allow-fs-read=${dir}/*`,
    `--allow-fs-write=${dir}/*`,
    `--max-old-space-size=${HEAP_MB}`,
    '--disable-warning=ExperimentalWarning',
    '--require',
    join(dir, 'no-network.cjs'),
    join(dir, 'harness.cjs'),
  ];
  const limits = tools.prlimit === null ? [] : [tools.prlimit, `--as=${ADDRESS_SPACE_BYTES}`, `--fsize=${FILE_SIZE_BYTES}`, '--core=0', '--'];
  const netns = tools.unshare === null ? [] : [tools.unshare, '-n', '--'];
  return [...netns, ...limits, ...node];
}

function runIn(dir: string, timeoutMs: number): Promise<SandboxResult> {
  const [file, ...args] = command(dir);
  return new Promise((resolve) => {
    const child = spawn(file!, args, { cwd: dir, env: {}, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    // Checks run while the load may still be running: at the lowest priority a code check never
    // takes the CPU from the client's dispatch loop (or an in-process simulator) on a small machine.
    if (child.pid !== undefined) {
      try {
        setPriority(child.pid, CHECK_NICENESS);
      } catch {
        // not permitted here: the check still runs, at normal priority
      }
    }
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (b: Buffer) => {
      if (stdout.length < OUTPUT_LIMIT) stdout += b.toString('utf8');
    });
    child.stderr.on('data', (b: Buffer) => {
      if (stderr.length < OUTPUT_LIMIT) stderr += b.toString('utf8');
    });
    const kill = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, timedOut, stdout, stderr: `could not start node: ${err.message}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, timedOut, stdout, stderr });
    });
  });
}
