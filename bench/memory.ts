/**
 * Memory (issue 5): peak resident memory of `infermeter run` for N requests × T output tokens
 * (default 100,000 × 500), records streamed to disk. The CLI runs in a child process (closed
 * loop, 256 in flight) against the firehose server in another process, which streams each
 * response's T chunks as fast as the socket takes them, so the run is client-bound and short.
 *
 *   npx tsx bench/memory.ts [--requests 100000] [--tokens 500] [--concurrency 256]
 */
import { parseArgs } from 'node:util';
import { statSync } from 'node:fs';
import { runCli } from './cli-run.js';
import { fmt, machine, startProcess } from './lib.js';

export interface MemoryRow {
  requests: number;
  tokens: number;
  peakRssMiB: number;
  wallS: number;
  recordsMiB: number;
  tokensPerS: number;
}

export async function runMemory(opts: { requests: number; tokens: number; concurrency: number }): Promise<MemoryRow> {
  const { port, child } = await startProcess('./firehose-server.ts');
  try {
    const run = await runCli([
      '--base-url', `http://127.0.0.1:${port}`, '--endpoint', '/v1/chat/completions',
      '--concurrency', String(opts.concurrency), '--num-prompts', String(opts.requests),
      '--random-input-len', '16', '--random-output-len', String(opts.tokens), '--ignore-eos', '--name', 'memory',
    ]);
    if (run.code !== 0 || !run.recordsPath) throw new Error(`infermeter run exited ${run.code}: ${run.stderr.slice(0, 500)}`);
    const recordsMiB = statSync(run.recordsPath).size / 2 ** 20;
    run.cleanup();
    return { requests: opts.requests, tokens: opts.tokens, peakRssMiB: run.peakRssMiB, wallS: run.wallMs / 1000, recordsMiB, tokensPerS: (opts.requests * opts.tokens) / (run.wallMs / 1000) };
  } finally {
    child.kill('SIGTERM');
  }
}

export function printMemory(r: MemoryRow, opts: { concurrency: number }): void {
  console.log(`\n== memory: infermeter run, ${fmt(r.requests)} requests × ${fmt(r.tokens)} output tokens, closed loop ${opts.concurrency}, firehose server in a separate process`);
  console.log(`peak RSS ${fmt(r.peakRssMiB)} MiB   wall ${fmt(r.wallS, 1)} s (incl. startup)   ${fmt(r.tokensPerS)} tokens/s   records.jsonl ${fmt(r.recordsMiB)} MiB`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { requests: { type: 'string', default: '100000' }, tokens: { type: 'string', default: '500' }, concurrency: { type: 'string', default: '256' } } });
  const opts = { requests: Number(values.requests), tokens: Number(values.tokens), concurrency: Number(values.concurrency) };
  console.log(`machine: ${machine()}`);
  printMemory(await runMemory(opts), opts);
}
