/**
 * How long indexing a run in the history takes (what every saved run adds at its end): one
 * `sim run` makes a run directory, then indexRun is timed N times (open DuckDB, upsert, close).
 *
 *   npx tsx bench/history-index.ts [N]
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { main } from '../src/cli/main.js';
import { indexRun } from '../src/history/history-index.js';
import { machine } from './lib.js';

const n = Number(process.argv[2] ?? 10);
const results = join(mkdtempSync(join(tmpdir(), 'infermeter-bench-history-')), 'results');
const quiet = new Writable({ write: (_c, _e, cb) => cb() });
try {
  await main(['sim', 'run', '--num-prompts', '100', '--request-rate', '10', '--result-dir', results, '--no-report', '--quiet'], { stdout: quiet, stderr: quiet, env: {} });
  const dir = join(results, readdirSync(results, { withFileTypes: true }).find((d) => d.isDirectory())!.name);
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const warning = await indexRun(results, dir);
    ms.push(performance.now() - t);
    if (warning) throw new Error(warning);
  }
  ms.sort((a, b) => a - b);
  console.log(`machine: ${machine()}`);
  console.log(`indexRun x${n}: min ${ms[0]!.toFixed(0)} ms, median ${ms[Math.floor(n / 2)]!.toFixed(0)} ms, max ${ms[n - 1]!.toFixed(0)} ms`);
} finally {
  rmSync(join(results, '..'), { recursive: true, force: true });
}
