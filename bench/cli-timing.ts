/**
 * Timing error of the whole CLI (issue 5): `infermeter run` in its own process — worker
 * threads, record batching and all — against the paced server (bench/paced-server.ts in
 * `stamp` mode), which writes into every token the monotonic time (process.hrtime, ns) at which
 * it handed the token to the socket. With --keep-text each record's text carries those stamps,
 * one per content chunk, and result.json's `run.monotonic_origin_ns` puts the record's chunk
 * times on the same clock. So, per chunk, error = client arrival − server write, with no clock
 * synchronisation at all (one host, one CLOCK_MONOTONIC).
 *
 *   npx tsx bench/cli-timing.ts [--streams 100,1000] [--tokens 40] [--per-token-ms 50] [--rounds 1] [--workers N]
 *
 * Each round runs the CLI twice, without and with --busy-poll. The streams arrive at a
 * constant rate over one second (so about that many are open at once), after 200 warm-up
 * requests at the same rate that the figures exclude; `--preconnect` opens as many connections
 * as streams before t = 0.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import { parseArgs } from 'node:util';
import { readRecordsFile } from '../src/store/records-file.js';
import { runCli } from './cli-run.js';
import { fmt, machine, startProcess, TimingErrorCollector, type TimingError } from './lib.js';

export interface CliTimingRow extends TimingError {
  client: string;
  streams: number;
  /** the run's own verdict on the client, with its reasons when invalid */
  valid: boolean;
  reasons: string[];
}

const WARMUP = 200;

async function once(port: number, streams: number, tokens: number, busyPoll: boolean, workers: number | null): Promise<CliTimingRow> {
  const run = await runCli([
    '--base-url', `http://127.0.0.1:${port}`, '--endpoint', '/v1/chat/completions', '--model', 'paced',
    '--request-rate', String(streams), '--arrival', 'constant', '--num-prompts', String(streams + WARMUP), '--warmup', String(WARMUP),
    '--random-input-len', '16', '--random-output-len', String(tokens), '--ignore-eos', '--keep-text',
    // a connection per concurrent stream, opened before t = 0, as a user who knows the load would ask
    '--preconnect', String(streams),
    // the bench measures the timing error itself; the capacity self-test would refuse loads it wants to see, and an invalid run is reported in the verdict column
    '--no-capacity-check', '--allow-invalid',
    ...(busyPoll ? ['--busy-poll'] : []),
    ...(workers === null ? [] : ['--workers', String(workers)]),
  ]);
  try {
    if (run.code !== 0 || run.recordsPath === null) throw new Error(`infermeter run failed (${run.code}): ${run.stderr}`);
    const result = JSON.parse(readFileSync(join(dirname(run.recordsPath), 'result.json'), 'utf8')) as {
      run: { monotonic_origin_ns: string };
      validity: { valid: boolean; reasons: string[] };
    };
    const origin = BigInt(result.run.monotonic_origin_ns);
    const errors = new TimingErrorCollector();
    for (const r of readRecordsFile(run.recordsPath).records) {
      if (r.phase !== 'measure' || r.status !== 'ok' || r.output_text === null) continue;
      // the server's write stamps, put on the run's clock (ms since t = 0)
      const server = r.output_text.trim().split(' ').map((s) => Number(BigInt(s) - origin) / 1e6);
      errors.add(r.chunk_ms, server);
    }
    return {
      client: busyPoll ? 'infermeter run --busy-poll' : 'infermeter run',
      streams,
      ...errors.result(),
      valid: result.validity.valid,
      reasons: result.validity.reasons,
    };
  } finally {
    run.cleanup();
  }
}

export interface CliTimingOptions {
  streams: number[];
  tokens: number;
  perTokenMs: number;
  rounds: number;
  /** --workers for the CLI (null: its default) */
  workers: number | null;
}

export async function runCliTiming(opts: CliTimingOptions): Promise<CliTimingRow[]> {
  const gtPath = join(tmpdir(), `infermeter-cli-gt-${process.pid}.jsonl`);
  // The server's stamps are the ground truth: it keeps its core when a busy-polling client takes the other.
  const { port, child } = await startProcess('./paced-server.ts', [gtPath, String(opts.perTokenMs), '20', 'stamp'], { priority: -10 });
  const rows: CliTimingRow[] = [];
  try {
    for (const n of opts.streams) {
      for (let r = 0; r < opts.rounds; r++) {
        rows.push(await once(port, n, opts.tokens, false, opts.workers));
        rows.push(await once(port, n, opts.tokens, true, opts.workers));
      }
    }
  } finally {
    child.kill('SIGTERM');
  }
  return rows;
}

export function printCliTiming(rows: CliTimingRow[], opts: CliTimingOptions): void {
  const workers = opts.workers === null ? 'default workers' : `--workers ${opts.workers}`;
  console.log(`\n== timing error of the whole CLI vs the paced server's write stamps (${opts.tokens} tokens per stream, ${opts.perTokenMs} ms/token; ${workers}), ms`);
  console.log('client                        streams  paired   first-token p50    p99   ITL |err| p50    p99   verdict');
  for (const r of rows) {
    console.log(
      `${r.client.padEnd(28)} ${fmt(r.streams).padStart(8)} ${fmt(r.paired).padStart(7)}   ${fmt(r.firstP50, 3).padStart(15)} ${fmt(r.firstP99, 3).padStart(6)}   ${fmt(r.itlP50, 3).padStart(13)} ${fmt(r.itlP99, 3).padStart(6)}   ${r.valid ? 'valid' : `INVALID: ${r.reasons.join('; ')}`}`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { streams: { type: 'string', default: '100,1000' }, tokens: { type: 'string', default: '40' }, 'per-token-ms': { type: 'string', default: '50' }, rounds: { type: 'string', default: '1' }, workers: { type: 'string' } } });
  const opts: CliTimingOptions = { streams: values.streams.split(',').map(Number), tokens: Number(values.tokens), perTokenMs: Number(values['per-token-ms']), rounds: Number(values.rounds), workers: values.workers === undefined ? null : Number(values.workers) };
  console.log(`machine: ${machine()}`);
  printCliTiming(await runCliTiming(opts), opts);
}
