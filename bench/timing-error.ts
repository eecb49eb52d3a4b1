/**
 * Timing error (issue 5): client-measured token arrival times minus the simulator's
 * ground-truth emit times, at 100, 1,000 and 5,000 concurrent streams.
 *
 *   npx tsx bench/timing-error.ts [--streams 100,1000,5000] [--tokens 40] [--per-token-ms 50] [--server paced|sim]
 *                                 [--clients 'infermeter,infermeter busy-poll']
 *
 * The server runs in its own process and keeps ground truth: for every request a
 * performance.now() per token, plus its performance.timeOrigin, so both processes' times
 * convert to one epoch clock. `paced` (default, bench/paced-server.ts) records when each token
 * was handed to the socket: the error is then the client's (and the kernel's) alone. `sim`
 * (bench/timing-server.ts, the simulator) records each token's due and write times. Requests are
 * paired by the response id (`chatcmpl-sim<N>`). Reported, p50 / p99 over all requests:
 *  - first-token error: client's first content arrival − server's first token emit (what the
 *    client adds to TTFT: loopback, kernel, event-loop delay, parsing);
 *  - ITL error: |client gap − server gap| over every consecutive token pair.
 * The processes' epoch clocks are aligned by an IPC ping (offset from the fastest round trip).
 * With `sim`, the ground truth is each token's `written_ms` (when the simulator handed it to the
 * socket), so, as with `paced`, the error is the client's alone; the simulator's own lateness
 * against its schedule is printed alongside (p99).
 * Also the client's CPU time per chunk (each chunk is mostly its own socket read here) and its
 * share of one core over the run, which shows when the client, not the server, is the limit.
 * Clients, measured in the same run: ours (src/client/http1/ + OpenAIStreamScanner, the hot path
 * of src/client/http-client.ts), ours with --busy-poll (this thread polls instead of sleeping,
 * as src/runner/busy-poll.ts does in the runner), the scanner behind node:http and on a raw
 * socket (bench/raw-client.ts, a prototype), and the plain client (fetch + TextDecoder + JSON.parse).
 */
import http from 'node:http';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { BusyPoll } from '../src/runner/busy-poll.js';
import { OpenAIStreamScanner } from '../src/client/stream-scanner.js';
import { http1Request, PlainParser } from './clients.js';
import { rawPost } from './raw-client.js';
import { fmt, machine, startProcess, TimingErrorCollector, type TimingError } from './lib.js';

interface StreamTimes {
  id: number;
  /** epoch ms of each content chunk's arrival */
  times: number[];
}

const ID_RE = /"id":"(?:chat)?cmpl-sim(\d+)"/;
const origin = performance.timeOrigin;

function body(model: string, tokens: number): string {
  return JSON.stringify({ model, messages: [{ role: 'user', content: 'Tell me a story.' }], stream: true, max_tokens: tokens, ignore_eos: true });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

function scannerStream(port: number, payload: string): Promise<StreamTimes> {
  return new Promise((resolve, reject) => {
    const s = new OpenAIStreamScanner();
    let id = -1;
    const req = http.request({ host: '127.0.0.1', port, path: '/v1/chat/completions', method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      res.on('data', (b: Buffer) => {
        s.push(b, performance.now());
        if (id < 0) id = Number(ID_RE.exec(b.toString('latin1', 0, Math.min(b.length, 512)))?.[1] ?? -1);
      });
      res.on('end', () => {
        s.end(performance.now());
        resolve({ id, times: Array.from(s.contentTimes(), (t) => t + origin) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** infermeter's own transport (src/client/http1/, via bench/clients.ts) + the scanner. */
async function http1Stream(port: number, payload: string): Promise<StreamTimes> {
  const s = new OpenAIStreamScanner();
  let id = -1;
  await http1Request(new URL(`http://127.0.0.1:${port}/v1/chat/completions`), 'POST', payload, (b, now) => {
    s.push(b, now);
    if (id < 0) id = Number(ID_RE.exec(Buffer.from(b.buffer, b.byteOffset, Math.min(b.length, 512)).toString('latin1'))?.[1] ?? -1);
  });
  s.end(performance.now());
  return { id, times: Array.from(s.contentTimes(), (t) => t + origin) };
}

/** The scanner on a raw socket (bench/raw-client.ts): what a client without node:http could do. */
async function rawStream(port: number, payload: string): Promise<StreamTimes> {
  const s = new OpenAIStreamScanner();
  let id = -1;
  await rawPost(port, '/v1/chat/completions', payload, (b, now) => {
    s.push(b, now);
    if (id < 0) id = Number(ID_RE.exec(Buffer.from(b.buffer, b.byteOffset, Math.min(b.length, 512)).toString('latin1'))?.[1] ?? -1);
  });
  s.end(performance.now());
  return { id, times: Array.from(s.contentTimes(), (t) => t + origin) };
}

async function plainStream(port: number, payload: string): Promise<StreamTimes> {
  const res = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, { method: 'POST', body: payload, headers: { 'content-type': 'application/json' } });
  const p = new PlainParser();
  const reader = res.body!.getReader();
  let id = -1;
  for (;;) {
    const r = await reader.read();
    if (r.done) break;
    p.push(r.value, performance.now());
    if (id < 0) id = Number(ID_RE.exec(Buffer.from(r.value.buffer, r.value.byteOffset, Math.min(r.value.length, 512)).toString('latin1'))?.[1] ?? -1);
  }
  return { id, times: p.times.map((t) => t + origin) };
}

interface GtEntry {
  id: number;
  time_origin_ms: number;
  token_ms: number[];
  /** the simulator: when each token was written (token_ms is when it was due) */
  written_ms?: number[];
}

export interface TimingRow extends TimingError {
  client: string;
  streams: number;
  simLateP99: number;
  /** client CPU (user + system) per content chunk received, µs; and as a share of one core */
  cpuUsPerChunk: number;
  cpuShare: number;
}

/**
 * Offset of the server process's epoch clock (timeOrigin + now) from ours, in ms, by IPC ping:
 * the reply with the shortest round trip, assuming the answer was taken at its midpoint.
 */
async function clockOffset(child: ChildProcess): Promise<{ offset: number; rtt: number }> {
  let best = { offset: 0, rtt: Infinity };
  for (let i = 0; i < 50; i++) {
    const t0 = performance.now();
    child.send('clock');
    const [m] = (await once(child, 'message')) as [{ epoch: number }];
    const t1 = performance.now();
    if (t1 - t0 < best.rtt) best = { offset: m.epoch - (origin + (t0 + t1) / 2), rtt: t1 - t0 };
  }
  return best;
}

export interface TimingOptions {
  streams: number[];
  tokens: number;
  perTokenMs: number;
  /** paced: bench/paced-server.ts (ground truth = write times); sim: the simulator (its written_ms) */
  server: 'paced' | 'sim';
  /** Only these clients (names as printed); all when absent. */
  clients?: string[];
}

export async function runTiming(opts: TimingOptions): Promise<TimingRow[]> {
  const gtPath = join(tmpdir(), `infermeter-gt-${process.pid}.jsonl`);
  const script = opts.server === 'paced' ? './paced-server.ts' : './timing-server.ts';
  // The server's clock is the ground truth: it keeps its core when a busy-polling client takes the other.
  const { port, child } = await startProcess(script, [gtPath, String(opts.perTokenMs)], { priority: -10 });
  const rows: TimingRow[] = [];
  try {
    const models = (await (await fetch(`http://127.0.0.1:${port}/v1/models`)).json()) as { data: { id: string }[] };
    const payload = body(models.data[0]!.id, opts.tokens);
    // warm-up both clients
    await Promise.all(Array.from({ length: 200 }, () => scannerStream(port, payload)));
    await Promise.all(Array.from({ length: 200 }, () => plainStream(port, payload)));
    await Promise.all(Array.from({ length: 200 }, () => rawStream(port, payload)));
    await Promise.all(Array.from({ length: 200 }, () => http1Stream(port, payload)));
    for (const n of opts.streams) {
      for (const [client, fn, busyPoll] of [
        ['infermeter', http1Stream, false],
        ['infermeter busy-poll', http1Stream, true],
        ['http+scanner', scannerStream, false],
        ['raw+scanner', rawStream, false],
        ['plain', plainStream, false],
      ] as const) {
        if (opts.clients && !opts.clients.includes(client)) continue;
        child.send('dump');
        await once(child, 'message');
        // spread the connects over 1 s so a 5,000-stream start does not overflow the listen backlog
        const spread = 1000 / n;
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        // --busy-poll as the runner does it (src/runner/busy-poll.ts): this thread never sleeps
        const spin = busyPoll ? new BusyPoll().start() : null;
        const streams = await Promise.all(Array.from({ length: n }, (_, i) => new Promise<StreamTimes>((r, j) => setTimeout(() => fn(port, payload).then(r, j), i * spread))));
        spin?.stop();
        const cpu = process.cpuUsage(cpu0);
        const cpuUs = cpu.user + cpu.system;
        const wallUs = (performance.now() - t0) * 1000;
        const chunks = streams.reduce((a, s) => a + s.times.length, 0);
        child.send('dump');
        const [msg] = (await once(child, 'message')) as [{ lateness: { p99_ms: number } }];
        const { offset } = await clockOffset(child);
        const gt = new Map<number, GtEntry>();
        for (const line of readFileSync(gtPath, 'utf8').split('\n')) {
          if (!line) continue;
          const e = JSON.parse(line) as GtEntry;
          gt.set(e.id, e);
        }
        const errors = new TimingErrorCollector();
        for (const s of streams) {
          const g = gt.get(s.id);
          const sent = g?.written_ms ?? g?.token_ms;
          if (g && sent) errors.add(s.times, sent.map((t) => t + g.time_origin_ms - offset));
        }
        rows.push({ client, streams: n, ...errors.result(), simLateP99: msg.lateness.p99_ms, cpuUsPerChunk: cpuUs / chunks, cpuShare: cpuUs / wallUs });
      }
    }
  } finally {
    child.kill('SIGTERM');
  }
  return rows;
}

export function printTiming(rows: TimingRow[], opts: TimingOptions): void {
  const what = opts.server === 'paced' ? 'paced server, ground truth = socket write times' : 'simulator, ground truth = its socket write times (written_ms)';
  console.log(`\n== timing error vs ${what} (separate process; ${opts.tokens} tokens per stream, ${opts.perTokenMs} ms/token), ms`);
  console.log('client                streams  paired   first-token p50    p99   ITL |err| p50    p99   (server lateness p99)   client CPU/chunk   CPU share');
  for (const r of rows) {
    console.log(
      `${r.client.padEnd(20)} ${fmt(r.streams).padStart(8)} ${fmt(r.paired).padStart(7)}   ${fmt(r.firstP50, 3).padStart(15)} ${fmt(r.firstP99, 3).padStart(6)}   ${fmt(r.itlP50, 3).padStart(13)} ${fmt(r.itlP99, 3).padStart(6)}   ${fmt(r.simLateP99, 3).padStart(8)}   ${fmt(r.cpuUsPerChunk, 2).padStart(12)} µs   ${fmt(r.cpuShare * 100, 0).padStart(6)}%`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { streams: { type: 'string', default: '100,1000,5000' }, tokens: { type: 'string', default: '40' }, 'per-token-ms': { type: 'string', default: '50' }, server: { type: 'string', default: 'paced' }, clients: { type: 'string' } } });
  const server = values.server === 'sim' ? 'sim' : 'paced';
  const opts = { streams: values.streams.split(',').map(Number), tokens: Number(values.tokens), perTokenMs: Number(values['per-token-ms']), server, ...(values.clients ? { clients: values.clients.split(',') } : {}) } as const;
  console.log(`machine: ${machine()}`);
  printTiming(await runTiming(opts), opts);
}
