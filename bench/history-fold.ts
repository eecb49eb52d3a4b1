/**
 * The first read after many runs: N rows wait in the journal (as N finished runs leave them) and
 * one fold puts them in the history. Reports the fold's CPU per row and the load average.
 *
 *   npx tsx bench/history-fold.ts [N]
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { main } from '../src/cli/main.js';
import { foldJournal } from '../src/history/history-db.js';
import { writePending } from '../src/history/history-journal.js';
import { rowFromRunDir } from '../src/history/history-row.js';
import { machine } from './lib.js';

const n = Number(process.argv[2] ?? 2000);
const results = join(mkdtempSync(join(tmpdir(), 'infermeter-bench-fold-')), 'results');
const quiet = new Writable({ write: (_c, _e, cb) => cb() });
try {
  await main(['sim', 'run', '--num-prompts', '50', '--request-rate', '10', '--result-dir', results, '--no-report', '--quiet'], { stdout: quiet, stderr: quiet, env: {} });
  const dir = readdirSync(results, { withFileTypes: true }).find((d) => d.isDirectory() && !d.name.startsWith('.'))!.name;
  await foldJournal(results); // the file exists: the fold below opens an existing history
  const row = rowFromRunDir(results, join(results, dir));
  for (let i = 0; i < n; i++) writePending(results, { ...row, run_id: `bench-${i}` });
  const load = loadavg()[0]!.toFixed(2);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await foldJournal(results);
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  console.log(`machine: ${machine()}`);
  console.log(`fold of ${n} journal rows: ${cpuMs.toFixed(0)} ms CPU (${(cpuMs / n).toFixed(2)} ms per row), ${wall.toFixed(0)} ms wall, load average ${load}`);
} finally {
  rmSync(join(results, '..'), { recursive: true, force: true });
}
