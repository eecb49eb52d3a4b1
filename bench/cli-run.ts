/**
 * Run `infermeter run …` in a child process, watching its peak resident memory (VmHWM from
 * /proc, Linux), and read back its records.jsonl.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface CliRun {
  code: number;
  /** Peak resident set of the CLI process, MiB (NaN where /proc is missing). */
  peakRssMiB: number;
  wallMs: number;
  /** records.jsonl lines, parsed lazily by the caller */
  recordsPath: string | null;
  cleanup(): void;
  stderr: string;
}

function vmHwmKiB(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}

export function runCli(args: string[]): Promise<CliRun> {
  const dir = mkdtempSync(join(tmpdir(), 'infermeter-bench-'));
  const entry = fileURLToPath(new URL('./infermeter-cli.ts', import.meta.url));
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', entry, 'run', ...args, '--result-dir', dir, '--progress', 'none'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  let peak = NaN;
  const poll = setInterval(() => {
    const v = vmHwmKiB(child.pid!);
    if (!Number.isNaN(v)) peak = Number.isNaN(peak) ? v : Math.max(peak, v);
  }, 100);
  return new Promise((resolve) => {
    child.on('exit', (code) => {
      clearInterval(poll);
      const runs = readdirSync(dir).filter((d) => !d.startsWith('.') && d !== 'history.duckdb');
      const recordsPath = runs.length > 0 ? join(dir, runs[0]!, 'records.jsonl') : null;
      resolve({ code: code ?? -1, peakRssMiB: peak / 1024, wallMs: performance.now() - t0, recordsPath, stderr, cleanup: () => rmSync(dir, { recursive: true, force: true }) });
    });
  });
}
