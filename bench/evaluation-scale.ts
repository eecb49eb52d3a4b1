/**
 * The evaluation layer at scale (issue 31): what a user runs after a run — analyze, report,
 * export (CSV, Parquet) and compare — on virtual-time runs of 10k, 100k (and, with
 * --sizes …,1000000, 1M) requests at 20 req/s (the defaults: 1,024-token prompts, 128-token
 * outputs). Each command runs the built CLI in a child process; CPU (user + system) and peak RSS
 * are the child's own (bench/usage-at-exit.mjs). For each command the growth exponent between
 * each two neighbouring sizes is log(CPU ratio) / log(size ratio); the bench exits 1 when one is above
 * 1.1 (super-linear), and prints the goals at 100k and 1M beside the figures. analyze,
 * report and compare run twice: reading the text (a run's first read when no records.cols is
 * there: a real server's run, or one from an older build) and reading the column file (what
 * `sim run` leaves, and every later read; docs/records.md). The `sim run` rows are the first
 * run of each size, records.cols included.
 *
 *   npx tsx bench/evaluation-scale.ts [--sizes 10000,100000] [--no-build]
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { fmt, machine } from './lib.js';
import { COLUMNS_FILE } from '../src/record/record-columns.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const MAX_EXPONENT = 1.1;

interface Usage {
  cpuS: number;
  peakMiB: number;
  load1: number;
}

/** The goals: CPU seconds and peak MiB at 100k and 1M requests (null: none stated). */
const GOALS: Record<string, Record<number, { cpuS: number | null; peakMiB: number | null }>> = {
  analyze: { 100_000: { cpuS: 1, peakMiB: 150 }, 1_000_000: { cpuS: 8, peakMiB: 500 } },
  report: { 100_000: { cpuS: 1, peakMiB: 150 }, 1_000_000: { cpuS: 8, peakMiB: 500 } },
  'export csv': { 100_000: { cpuS: null, peakMiB: 300 }, 1_000_000: { cpuS: null, peakMiB: 300 } },
  'export parquet': { 100_000: { cpuS: null, peakMiB: 300 }, 1_000_000: { cpuS: null, peakMiB: 300 } },
  compare: { 100_000: { cpuS: 3, peakMiB: null } },
};

async function cli(args: string[], dir: string): Promise<Usage> {
  const usage = join(dir, `usage-${process.hrtime.bigint()}.json`);
  const load1 = loadavg()[0]!;
  // The CLI as a user runs it: the program itself, so its shebang's V8 flags apply (`node
  // bin/infermeter.js` would drop them); the usage preload rides in NODE_OPTIONS.
  const child = spawn(join(ROOT, 'bin/infermeter.js'), args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, BENCH_USAGE_FILE: usage, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${join(ROOT, 'bench/usage-at-exit.mjs')}`.trim() },
  });
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? -1)));
  if (code !== 0 && code !== 3 && code !== 4 && code !== 5) throw new Error(`infermeter ${args.join(' ')} exited ${code}: ${err.slice(-400)}`);
  const u = JSON.parse(readFileSync(usage, 'utf8')) as { user_s: number; system_s: number; max_rss_kib: number };
  return { cpuS: u.user_s + u.system_s, peakMiB: u.max_rss_kib / 1024, load1 };
}

async function simRun(n: number, seed: number, results: string): Promise<{ dir: string; usage: Usage }> {
  const before = new Set(readdirSync(results));
  const usage = await cli(['sim', 'run', '--num-prompts', String(n), '--request-rate', '20', '--seed', String(seed), '--result-dir', results, '--name', `n${n}-s${seed}`, '--no-report', '--progress', 'none', '--quiet'], results);
  return { dir: join(results, readdirSync(results).find((d) => !before.has(d) && d.includes(`n${n}-s${seed}`))!), usage };
}

/** log(cost ratio) / log(size ratio): 1 is linear. */
export function growthExponent(n1: number, c1: number, n2: number, c2: number): number {
  return Math.log(c2 / c1) / Math.log(n2 / n1);
}

/** `--sizes 10000,100000`: positive integers, else one line (the bench's own bad input). */
export function parseSizes(text: string): number[] {
  const sizes = text.split(',').map((x) => Number(x.trim()));
  if (sizes.length === 0 || sizes.some((n) => !Number.isInteger(n) || n <= 0)) {
    console.error(`--sizes ${text}: give sizes as positive integers separated by commas (10000,100000,1000000)`);
    process.exit(2);
  }
  return [...new Set(sizes)].sort((a, b) => a - b);
}

export type ScaleRow = { command: string; n: number } & Usage;

export async function runEvaluationScale(sizes: number[]): Promise<ScaleRow[]> {
  const rows: ScaleRow[] = [];
  for (const n of sizes) {
    const tmp = mkdtempSync(join(tmpdir(), 'infermeter-bench-eval-'));
    try {
      const first = await simRun(n, 1, tmp);
      rows.push({ command: 'sim run', n, ...first.usage });
      const a = first.dir;
      const b = (await simRun(n, 2, tmp)).dir;
      // Each reader of records twice: from the text (no records.cols: the first read after a run,
      // which writes it) and from the column file the first read left (every later read).
      const commands: Array<[string, string[], 'text' | 'columns' | null]> = [
        ['analyze', ['analyze', a, '--json'], 'text'],
        ['analyze', ['analyze', a, '--json'], 'columns'],
        ['report', ['report', a, '--out', join(tmp, 'report.html')], 'text'],
        ['report', ['report', a, '--out', join(tmp, 'report.html')], 'columns'],
        ['export csv', ['export', a, '--format', 'csv', '--out-dir', join(tmp, 'csv')], null],
        ['export parquet', ['export', a, '--format', 'parquet', '--out-dir', join(tmp, 'parquet')], null],
        ['compare', ['compare', a, b], 'text'],
        ['compare', ['compare', a, b], 'columns'],
      ];
      for (const [command, args, from] of commands) {
        if (from === 'text') for (const dir of [a, b]) rmSync(join(dir, COLUMNS_FILE), { force: true });
        if (from === 'columns' && !existsSync(join(a, COLUMNS_FILE))) throw new Error(`${command}: the read before left no ${COLUMNS_FILE}`);
        rows.push({ command: from === null ? command : `${command} (${from})`, n, ...(await cli(args, tmp)) });
      }
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  return rows;
}

/** Prints the rows; returns the commands whose growth exponent is above MAX_EXPONENT. */
export function printEvaluationScale(rows: ScaleRow[]): string[] {
  console.log('\n== evaluation at scale: analyze, report, export, compare of sim runs at 20 req/s (defaults), built CLI in a child');
  console.log('command             requests   CPU s   peak MiB   load avg   goal (issue 31)');
  const sizes = [...new Set(rows.map((r) => r.n))].sort((x, y) => x - y);
  const over: string[] = [];
  for (const command of [...new Set(rows.map((r) => r.command))]) {
    for (const r of rows.filter((x) => x.command === command)) {
      const g = GOALS[command.replace(/ \((text|columns)\)$/, '')]?.[r.n];
      const goal = g ? [g.cpuS !== null ? `CPU ≤ ${g.cpuS} s ${r.cpuS <= g.cpuS ? 'met' : 'NOT met'}` : null, g.peakMiB !== null ? `≤ ${g.peakMiB} MiB ${r.peakMiB <= g.peakMiB ? 'met' : 'NOT met'}` : null].filter(Boolean).join(', ') : '';
      console.log(`${command.padEnd(18)} ${fmt(r.n).padStart(9)}  ${fmt(r.cpuS, 2).padStart(6)}  ${fmt(r.peakMiB).padStart(9)}  ${fmt(r.load1, 1).padStart(9)}   ${goal}`);
    }
    // The growth exponent between each pair of neighbouring sizes (10k → 100k, 100k → 1M).
    for (let k = 1; k < sizes.length; k++) {
      const [n1, n2] = [sizes[k - 1]!, sizes[k]!];
      const c1 = rows.find((r) => r.command === command && r.n === n1)?.cpuS;
      const c2 = rows.find((r) => r.command === command && r.n === n2)?.cpuS;
      if (c1 === undefined || c2 === undefined) continue;
      const e = growthExponent(n1, c1, n2, c2);
      console.log(`${command.padEnd(18)} growth exponent ${fmt(n1)} → ${fmt(n2)}: ${fmt(e, 2)} (fails above ${MAX_EXPONENT})`);
      if (e > MAX_EXPONENT) over.push(`${command} ${fmt(n1)} → ${fmt(n2)} (n^${e.toFixed(2)})`);
    }
  }
  if (over.length > 0) console.log(`FAIL: super-linear: ${over.join(', ')}`);
  return over;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { sizes: { type: 'string', default: '10000,100000' }, 'no-build': { type: 'boolean', default: false } } });
  console.log(`machine: ${machine()}`);
  if (!values['no-build']) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  const over = printEvaluationScale(await runEvaluationScale(parseSizes(values.sizes)));
  if (over.length > 0) process.exitCode = 1;
}
