/**
 * `npm run bench`: every benchmark of the measuring client, with the machine it ran on.
 * Figures and how to read them: docs/performance.md.
 *
 *   npm run bench                      # all
 *   npx tsx bench/run-all.ts --quick   # smaller loads, for a smoke run (~2 min)
 *
 * Each part also runs alone: bench/parse.ts, ingest.ts, timing-error.ts, cli-timing.ts, schedule.ts, memory.ts, report.ts,
 * virtual-time.ts, evaluation-scale.ts, history-fold.ts.
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
import { printEvaluationScale, runEvaluationScale } from './evaluation-scale.js';

const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
const q = values.quick;

console.log(`machine: ${machine()}`);
console.log(`date: ${new Date().toISOString()}`);

for (const [read, varying] of [
  [65536, false],
  [0, false],
  [227, false],
  [65536, true],
] as const) {
  const parseOpts = { events: q ? 200_000 : 1_000_000, read, rounds: q ? 3 : 5, varying };
  printParse(runParse(parseOpts), parseOpts);
}

const ingestOpts = { events: q ? 400_000 : 2_000_000, streams: 8, rounds: q ? 2 : 3 };
printIngest(await runIngest(ingestOpts), ingestOpts);

for (const server of ['paced', 'sim'] as const) {
  const timingOpts = { streams: q || server === 'sim' ? [100, 1000] : [100, 1000, 5000], tokens: 40, perTokenMs: 50, server };
  printTiming(await runTiming(timingOpts), timingOpts);
}

const cliTimingOpts = { streams: q ? [1000] : [100, 1000], tokens: 40, perTokenMs: 50, rounds: 1, workers: null };
printCliTiming(await runCliTiming(cliTimingOpts), cliTimingOpts);

const scheduleOpts = { rates: [100, 1000], seconds: q ? 5 : 20 };
printSchedule(await runSchedule(scheduleOpts), scheduleOpts);

const memoryOpts = { requests: q ? 10_000 : 100_000, tokens: 500, concurrency: 256 };
printMemory(await runMemory(memoryOpts), memoryOpts);

printReport(await runReportBench({ requests: q ? 10_000 : 100_000 }));

// Scale of virtual time: 1 h at 20 req/s (CPU goal) and 24 h (peak RSS goal; --quick: 4 h).
buildCli();
printVirtualTime([await runVirtualTime(1), await runVirtualTime(q ? 4 : 24)]);

// The evaluation layer at scale (issue 31): analyze, report, export, compare at 10k and 100k
// requests (and 1M without --quick); a growth exponent above 1.1 fails the bench.
const superLinear = printEvaluationScale(await runEvaluationScale(q ? [10_000, 100_000] : [10_000, 100_000, 1_000_000]));
if (superLinear.length > 0) process.exitCode = 1;
