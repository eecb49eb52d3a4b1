/**
 * Profiling harness for the scanner alone: in-memory firehose bytes in 64 KiB reads.
 *
 *   node --import tsx --cpu-prof --cpu-prof-dir=/tmp/prof bench/profile-parse.ts [events]
 *
 * then open the .cpuprofile in Chrome DevTools (Performance tab) or VS Code.
 */
import { performance } from 'node:perf_hooks';
import { OpenAIStreamScanner } from '../src/client/stream-scanner.js';
import { firehoseBlock } from './firehose-chunks.js';

const events = Number(process.argv[2] ?? 200000);
const body = firehoseBlock(events);
const reads: Uint8Array[] = [];
for (let i = 0; i < body.length; i += 65536) reads.push(body.subarray(i, i + 65536));
for (let r = 0; r < 10; r++) {
  const t0 = performance.now();
  const s = new OpenAIStreamScanner();
  for (let i = 0; i < reads.length; i++) s.push(reads[i]!, i);
  s.end(0);
  const dt = performance.now() - t0;
  if (r >= 7) console.log(`${((s.contentEvents / dt) * 1000 / 1e6).toFixed(2)} M events/s, ${((dt * 1e6) / s.contentEvents).toFixed(0)} ns/event`);
}
