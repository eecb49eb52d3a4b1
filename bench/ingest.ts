/**
 * Ingestion ceiling (issue 5): content chunks per second one client core can receive,
 * timestamp and classify, against the firehose server running in a separate process.
 *
 *   npx tsx bench/ingest.ts [--events N] [--streams S] [--rounds R]
 *
 * Every round runs each client once on the same load (S concurrent streams, N content chunks
 * in all); clients are interleaved so drift of a shared machine hits all of them alike.
 * Reported per client, median over rounds: chunks per wall-clock second and chunks per
 * client-CPU second (user + system of this process; the server's CPU is not in it), and the
 * ratio to the plain client measured in the same round.
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { CLIENTS } from './clients.js';
import { cpuMs, fmt, machine, median, startProcess } from './lib.js';

export interface IngestResult {
  client: string;
  wallRate: number;
  cpuRate: number;
  ratioWall: number;
  ratioCpu: number;
}

export async function runIngest(opts: { events: number; streams: number; rounds: number }): Promise<IngestResult[]> {
  const { port, child } = await startProcess('./firehose-server.ts');
  try {
    const per = Math.ceil(opts.events / opts.streams);
    const url = `http://127.0.0.1:${port}/v1/chat/completions?events=${per}`;
    const names = Object.keys(CLIENTS);
    const wall: Record<string, number[]> = {};
    const cpu: Record<string, number[]> = {};
    for (const n of names) {
      wall[n] = [];
      cpu[n] = [];
    }
    // warm-up: JIT both parsers and open connections
    for (const n of names) await Promise.all(Array.from({ length: opts.streams }, () => CLIENTS[n]!(url.replace(/events=\d+/, 'events=20000'))));
    for (let r = 0; r < opts.rounds; r++) {
      for (const n of names) {
        const c0 = cpuMs();
        const t0 = performance.now();
        const counts = await Promise.all(Array.from({ length: opts.streams }, () => CLIENTS[n]!(url)));
        const dt = performance.now() - t0;
        const dc = cpuMs() - c0;
        const total = counts.reduce((a, b) => a + b, 0);
        if (total !== per * opts.streams) throw new Error(`${n}: counted ${total} content chunks, expected ${per * opts.streams}`);
        wall[n]!.push((total / dt) * 1000);
        cpu[n]!.push((total / dc) * 1000);
      }
    }
    return names.map((n) => ({
      client: n,
      wallRate: median(wall[n]!),
      cpuRate: median(cpu[n]!),
      ratioWall: median(wall[n]!.map((w, i) => w / wall.plain![i]!)),
      ratioCpu: median(cpu[n]!.map((c, i) => c / cpu.plain![i]!)),
    }));
  } finally {
    child.kill('SIGTERM');
  }
}

export function printIngest(rows: IngestResult[], opts: { events: number; streams: number; rounds: number }): void {
  console.log(`\n== ingestion ceiling: ${fmt(opts.events)} content chunks over ${opts.streams} streams from a separate firehose process, median of ${opts.rounds} rounds`);
  console.log('client            chunks/s (wall)   chunks/s (client CPU)   vs plain (wall)   vs plain (CPU)');
  for (const r of rows) {
    console.log(`${r.client.padEnd(16)}  ${fmt(r.wallRate).padStart(15)}   ${fmt(r.cpuRate).padStart(21)}   ${fmt(r.ratioWall, 2).padStart(14)}×   ${fmt(r.ratioCpu, 2).padStart(13)}×`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { events: { type: 'string', default: '1000000' }, streams: { type: 'string', default: '8' }, rounds: { type: 'string', default: '3' } } });
  const opts = { events: Number(values.events), streams: Number(values.streams), rounds: Number(values.rounds) };
  console.log(`machine: ${machine()}`);
  printIngest(await runIngest(opts), opts);
}
