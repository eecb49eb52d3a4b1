/**
 * How long putting a run in the history takes: one `sim run` makes a run directory, then N
 * times, indexRun (what every saved run does at its end: its row into the journal) and the fold
 * the next reader does (open DuckDB for writing, upsert the journal's row, close) are timed.
 *
 *   npx tsx bench/history-index.ts [N]
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { main } from '../src/cli/main.js';
import { foldJournal } from '../src/history/history-db.js';
import { indexRun } from '../src/history/history-index.js';
import { machine } from './lib.js';

const n = Number(process.argv[2] ?? 10);
const results = join(mkdtempSync(join(tmpdir(), 'infermeter-bench-history-')), 'results');
const quiet = new Writable({ write: (_c, _e, cb) => cb() });
try {
  await main(['sim', 'run', '--num-prompts', '100', '--request-rate', '10', '--result-dir', results, '--no-report', '--quiet'], { stdout: quiet, stderr: quiet, env: {} });
  const dir = join(results, readdirSync(results, { withFileTypes: true }).find((d) => d.isDirectory() && !d.name.startsWith('.'))!.name);
  const journal: number[] = [];
  const fold: number[] = [];
  await foldJournal(results); // the file exists: every fold below opens an existing history
  for (let i = 0; i < n; i++) {
    let t = performance.now();
    const warning = await indexRun(results, dir);
    journal.push(performance.now() - t);
    if (warning) throw new Error(warning);
    t = performance.now();
    await foldJournal(results);
    fold.push(performance.now() - t);
  }
  const line = (what: string, ms: number[]) => {
    ms.sort((a, b) => a - b);
    console.log(`${what} x${n}: min ${ms[0]!.toFixed(1)} ms, median ${ms[Math.floor(n / 2)]!.toFixed(1)} ms, max ${ms[n - 1]!.toFixed(1)} ms`);
  };
  console.log(`machine: ${machine()}`);
  line('indexRun (the run: its row into the journal)', journal);
  line('foldJournal (the next reader: DuckDB open, upsert, close)', fold);
} finally {
  rmSync(join(results, '..'), { recursive: true, force: true });
}
