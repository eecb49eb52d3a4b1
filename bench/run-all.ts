/**
 * `npm run bench`: every benchmark of the measuring client, with the machine it ran on.
 * Figures and how to read them: docs/performance.md.
 *
 *   npm run bench                      # all
 *   npx tsx bench/run-all.ts --quick   # smaller loads, for a smoke run
 */
import { parseArgs } from 'node:util';
import { machine } from './lib.js';
import { printIngest, runIngest } from './ingest.js';
import { printParse, runParse } from './parse.js';

const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
const q = values.quick;

console.log(`machine: ${machine()}`);
console.log(`date: ${new Date().toISOString()}`);

const parseOpts = { events: q ? 200_000 : 1_000_000, read: 65536, rounds: q ? 3 : 5 };
printParse(runParse(parseOpts), parseOpts);

const ingestOpts = { events: q ? 400_000 : 2_000_000, streams: 8, rounds: q ? 2 : 3 };
printIngest(await runIngest(ingestOpts), ingestOpts);
