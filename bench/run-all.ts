/**
 * `npm run bench`: every benchmark of the measuring client, with the machine it ran on.
 * Figures and how to read them: docs/performance.md.
 *
 *   npm run bench                      # all
 *   npx tsx bench/run-all.ts --quick   # smaller loads, for a smoke run (~2 min)
 *   npx tsx bench/run-all.ts --only evaluation --sizes 10000,100000   # one section alone
 *   npx tsx bench/run-all.ts --only history --runs 200,2000
 *
 * Sections (--only, comma-separated): parse, ingest, timing, cli-timing, schedule, memory, report,
 * virtual-time, evaluation, history. --sizes: the evaluation section's requests (default
 * 10000,100000,1000000; --quick 10000,100000); --runs: the history section's runs (default
 * 200,2000). A growth exponent above 1.1 or a missed history goal fails the bench (exit 1).
 *
 * Each part also runs alone: bench/parse.ts, ingest.ts, timing-error.ts, cli-timing.ts, schedule.ts, memory.ts, report.ts,
 * virtual-time.ts, evaluation-scale.ts, history-fold.ts, dashboard.ts.
 */
import { parseArgs } from 'node:util';
import { machine } from './lib.js';
import { printIngest, runIngest } from './ingest.js';
import { printParse, runParse } from './parse.js';
import { printTiming, runTiming } from './timing-error.js';
import { printCliTiming, runCliTiming } from './cli-timing.js';
import { printSchedule, runSchedule } from './schedule.js';
import { printMemory, runMemory } from './memory.js';
import { printReport, runReportBench } from './report.js';
import { buildCli, printVirtualTime, runVirtualTime } from './virtual-time.js';
import { parseSizes, printEvaluationScale, runEvaluationScale } from './evaluation-scale.js';
import { benchHistoryDashboard } from './dashboard.js';

const SECTIONS = ['parse', 'ingest', 'timing', 'cli-timing', 'schedule', 'memory', 'report', 'virtual-time', 'evaluation', 'history'] as const;
const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, only: { type: 'string' }, sizes: { type: 'string' }, runs: { type: 'string' } } });
const q = values.quick;
const only = values.only === undefined ? null : values.only.split(',').map((x) => x.trim());
const unknown = only?.filter((x) => !(SECTIONS as readonly string[]).includes(x)) ?? [];
if (unknown.length > 0) {
  console.error(`--only ${values.only}: no section ${unknown.join(', ')} (sections: ${SECTIONS.join(', ')})`);
  process.exit(2);
}
const evalSizes = parseSizes(values.sizes ?? (q ? '10000,100000' : '10000,100000,1000000'));
const historyRuns = parseSizes(values.runs ?? '200,2000');
const section = (name: (typeof SECTIONS)[number]): boolean => only === null || only.includes(name);

console.log(`machine: ${machine()}`);
console.log(`date: ${new Date().toISOString()}`);

if (section('parse')) for (const [read, varying] of [
  [65536, false],
  [0, false],
  [227, false],
  [65536, true],
] as const) {
  const parseOpts = { events: q ? 200_000 : 1_000_000, read, rounds: q ? 3 : 5, varying };
  printParse(runParse(parseOpts), parseOpts);
}

if (section('ingest')) {
  const ingestOpts = { events: q ? 400_000 : 2_000_000, streams: 8, rounds: q ? 2 : 3 };
  printIngest(await runIngest(ingestOpts), ingestOpts);
}

if (section('timing')) for (const server of ['paced', 'sim'] as const) {
  const timingOpts = { streams: q || server === 'sim' ? [100, 1000] : [100, 1000, 5000], tokens: 40, perTokenMs: 50, server };
  printTiming(await runTiming(timingOpts), timingOpts);
}

if (section('cli-timing')) {
  const cliTimingOpts = { streams: q ? [1000] : [100, 1000], tokens: 40, perTokenMs: 50, rounds: 1, workers: null };
  printCliTiming(await runCliTiming(cliTimingOpts), cliTimingOpts);
}

if (section('schedule')) {
  const scheduleOpts = { rates: [100, 1000], seconds: q ? 5 : 20 };
  printSchedule(await runSchedule(scheduleOpts), scheduleOpts);
}

if (section('memory')) {
  const memoryOpts = { requests: q ? 10_000 : 100_000, tokens: 500, concurrency: 256 };
  printMemory(await runMemory(memoryOpts), memoryOpts);
}

if (section('report')) printReport(await runReportBench({ requests: q ? 10_000 : 100_000 }));

// Scale of virtual time: 1 h at 20 req/s (CPU goal) and 24 h (peak RSS goal; --quick: 4 h).
// The sections below run the built CLI.
if (section('virtual-time') || section('evaluation') || section('history')) buildCli();
if (section('virtual-time')) printVirtualTime([await runVirtualTime(1), await runVirtualTime(q ? 4 : 24)]);

// The evaluation layer at scale (issue 31): analyze, report, export, compare at 10k, 100k and 1M
// requests (--quick: 10k and 100k), the growth exponent between each two neighbouring sizes; one
// above 1.1 fails the bench.
if (section('evaluation')) {
  const superLinear = printEvaluationScale(await runEvaluationScale(evalSizes));
  if (superLinear.length > 0) process.exitCode = 1;
}

// The history and the dashboard after 200 and 2,000 runs (issue 31): the first read, the
// dashboard's page load; a missed goal at 2,000 runs or a growth exponent above 1.1 fails the bench.
if (section('history')) {
  const failed = await benchHistoryDashboard(historyRuns);
  if (failed.length > 0) process.exitCode = 1;
}
