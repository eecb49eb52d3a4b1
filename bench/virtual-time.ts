/**
 * Scale of virtual time (issue 14): `infermeter sim run` at 20 req/s (Poisson, H100 /
 * Llama-3.1-8B, 1,024-token prompts, 128-token outputs — the defaults), whole CLI in a child
 * process, records.jsonl and report.html written:
 *   1. one hour (≈ 72,000 requests, 9 M chunk times): CPU time (user + system) — goal ≤ 3 s;
 *   2. 24 hours (≈ 1.7 M requests, 220 M chunk times): peak RSS — goal ≤ 1 GiB.
 * The child runs the built CLI (bin/infermeter.js → dist/, built first with `npm run build`) so
 * no TypeScript compilation is counted; CPU and peak RSS are the process's own
 * (process.resourceUsage at exit, bench/usage-at-exit.mjs).
 *
 *   npx tsx bench/virtual-time.ts [--hours 1,24] [--no-build]
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { fmt, machine } from './lib.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CPU_GOAL_S = 3;
export const RSS_GOAL_MIB = 1024;

export interface VirtualTimeRow {
  hours: number;
  requests: number;
  cpuS: number;
  wallS: number;
  peakRssMiB: number;
  recordsMiB: number;
  /** 1-minute load average when the run started: the machine is shared, so CPU figures vary with it. */
  load1: number;
}

export function buildCli(): void {
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
}

export async function runVirtualTime(hours: number): Promise<VirtualTimeRow> {
  const dir = mkdtempSync(join(tmpdir(), 'infermeter-bench-vt-'));
  const usage = join(dir, 'usage.json');
  const args = ['--import', join(ROOT, 'bench/usage-at-exit.mjs'), join(ROOT, 'bin/infermeter.js'), 'sim', 'run', '--request-rate', '20', '--duration', `${hours}h`, '--seed', '0', '--result-dir', join(dir, 'results'), '--progress', 'none', '--json'];
  const load1 = loadavg()[0]!;
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BENCH_USAGE_FILE: usage } });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? -1)));
  const wallS = (performance.now() - t0) / 1000;
  try {
    if (code !== 0) throw new Error(`sim run exited ${code}: ${err.slice(-500)}`);
    const u = JSON.parse(readFileSync(usage, 'utf8')) as { user_s: number; system_s: number; max_rss_kib: number };
    const result = JSON.parse(out) as { metrics: { requests: { total: number } } };
    const run = readdirSync(join(dir, 'results')).find((d) => d !== 'history.duckdb' && !d.startsWith('.'))!;
    const recordsMiB = statSync(join(dir, 'results', run, 'records.jsonl')).size / 2 ** 20;
    return { hours, requests: result.metrics.requests.total, cpuS: u.user_s + u.system_s, wallS, peakRssMiB: u.max_rss_kib / 1024, recordsMiB, load1 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function printVirtualTime(rows: VirtualTimeRow[]): void {
  console.log('\n== virtual time: infermeter sim run at 20 req/s (H100, Llama-3.1-8B, defaults), records.jsonl and report.html written');
  console.log('hours   requests   CPU s   wall s   peak RSS MiB   records.jsonl MiB   load avg   goal');
  for (const r of rows) {
    const goal = r.hours === 1 ? `CPU ≤ ${CPU_GOAL_S} s: ${r.cpuS <= CPU_GOAL_S ? 'met' : 'NOT met'}` : r.hours === 24 ? `peak RSS ≤ ${RSS_GOAL_MIB} MiB: ${r.peakRssMiB <= RSS_GOAL_MIB ? 'met' : 'NOT met'}` : '';
    console.log(`${String(r.hours).padStart(5)}  ${fmt(r.requests).padStart(9)}  ${fmt(r.cpuS, 2).padStart(6)}  ${fmt(r.wallS, 1).padStart(7)}  ${fmt(r.peakRssMiB).padStart(13)}  ${fmt(r.recordsMiB).padStart(18)}  ${fmt(r.load1, 1).padStart(9)}   ${goal}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { hours: { type: 'string', default: '1,24' }, 'no-build': { type: 'boolean', default: false } } });
  console.log(`machine: ${machine()}`);
  if (!values['no-build']) buildCli();
  const rows: VirtualTimeRow[] = [];
  for (const h of values.hours.split(',').map(Number)) rows.push(await runVirtualTime(h));
  printVirtualTime(rows);
}
