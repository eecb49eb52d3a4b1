/** Small helpers shared by the benchmarks: machine description, medians, number formatting. */
import os, { setPriority } from 'node:os';
import { readFileSync } from 'node:fs';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export function machine(): string {
  let cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m) cpu = m[1]!.trim();
  } catch {
    // not Linux
  }
  return `${cpu}, ${os.availableParallelism()} cores (nproc), node ${process.version}, ${os.platform()} ${os.release()}`;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export const fmt = (x: number, digits = 0): string => x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Start a bench/*.ts script in its own Node process (via tsx, with IPC) and wait for its "PORT n" line. */
/**
 * BENCH_PIN=1 (Linux, ≥ 2 cores): the server process runs on CPU 0 and the measuring process on
 * CPU 1, so the two do not take turns on one core — on a 2-core machine that scheduling noise is
 * otherwise of the same size as the p99 figures being measured.
 */
export const PIN = process.env.BENCH_PIN === '1';
if (PIN) execFileSync('taskset', ['-a', '-cp', '1', String(process.pid)], { stdio: 'ignore' });

/**
 * `priority` (a nice value; negative needs root or CAP_SYS_NICE, silently skipped otherwise) lets
 * a server whose own timestamps are the ground truth keep its core against the measuring process.
 */
export function startProcess(script: string, args: string[] = [], opts: { priority?: number } = {}): Promise<{ port: number; child: ChildProcess }> {
  const path = fileURLToPath(new URL(script, import.meta.url));
  const argv = ['--import', 'tsx', path, ...args];
  const child = PIN
    ? spawn('taskset', ['-c', '0', process.execPath, ...argv], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] })
    : spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  if (opts.priority !== undefined && child.pid !== undefined) {
    try {
      setPriority(child.pid, opts.priority);
    } catch {
      // not permitted: run at the default priority
    }
  }
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /PORT (\d+)/.exec(out);
      if (m) resolve({ port: Number(m[1]), child });
    });
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Percentile by linear interpolation between closest ranks (numpy's default), p in [0, 100]. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const h = ((sorted.length - 1) * p) / 100;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/** A client's timing error against a server's ground truth, ms: first token and |ITL| error. */
export interface TimingError {
  /** streams paired with their ground truth */
  paired: number;
  firstP50: number;
  firstP99: number;
  itlP50: number;
  itlP99: number;
}

/**
 * Collects, stream by stream, client arrival times against the server's times for the same
 * tokens (one clock): first-token error = client − server for the first token; ITL error =
 * |client gap − server gap| for each consecutive pair. Streams whose token counts differ are skipped.
 */
export class TimingErrorCollector {
  private readonly first: number[] = [];
  private readonly itl: number[] = [];
  private paired = 0;

  add(client: ArrayLike<number>, server: ArrayLike<number>): void {
    if (client.length === 0 || client.length !== server.length) return;
    this.paired++;
    this.first.push(client[0]! - server[0]!);
    for (let i = 1; i < client.length; i++) this.itl.push(Math.abs(client[i]! - client[i - 1]! - (server[i]! - server[i - 1]!)));
  }

  result(): TimingError {
    const first = [...this.first].sort((a, b) => a - b);
    const itl = [...this.itl].sort((a, b) => a - b);
    return { paired: this.paired, firstP50: percentile(first, 50), firstP99: percentile(first, 99), itlP50: percentile(itl, 50), itlP99: percentile(itl, 99) };
  }
}
