/**
 * Pure parse throughput (issue 5): the scanner vs the plain parser on in-memory reads, no
 * network. The stream is the firehose's (vLLM chat chunks) cut into reads of `--read` bytes.
 *
 *   npx tsx bench/parse.ts [--events N] [--read BYTES|0] [--rounds R] [--varying]
 *
 * --read 0: one event per read. --varying: OpenAI-style chunks whose bytes vary beyond the
 * content string, so the scanner's template never matches (its slowest common case).
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { OpenAIStreamScanner } from '../src/client/stream-scanner.js';
import { Redactor } from '../src/util/redact.js';
import { PlainParser } from './clients.js';
import { firehoseBlock, firehoseHead, firehoseTail, varyingBlock } from './firehose-chunks.js';
import { fmt, machine, median } from './lib.js';

export interface ParseResult {
  parser: string;
  eventsPerS: number;
  mbPerS: number;
  ratio: number;
}

/** The firehose stream cut into reads of `read` bytes; `read` = 0: one event per read, as a lightly loaded server sends. */
function streamReads(events: number, read: number, varying: boolean): Uint8Array[] {
  const body = varying ? varyingBlock(events) : firehoseBlock(events);
  const all = new Uint8Array(firehoseHead.length + body.length + firehoseTail(events).length);
  all.set(firehoseHead);
  all.set(body, firehoseHead.length);
  all.set(firehoseTail(events), firehoseHead.length + body.length);
  const reads: Uint8Array[] = [];
  if (read === 0 && !varying) {
    reads.push(firehoseHead);
    for (let i = 0; i < body.length; i += firehoseBlock.eventBytes) reads.push(body.subarray(i, i + firehoseBlock.eventBytes));
    reads.push(firehoseTail(events));
    return reads;
  }
  for (let i = 0; i < all.length; i += read) reads.push(all.subarray(i, i + read));
  return reads;
}

type Parser = (reads: Uint8Array[]) => number;

const PARSERS: Record<string, Parser> = {
  plain: (reads) => {
    const p = new PlainParser();
    for (let i = 0; i < reads.length; i++) p.push(reads[i]!, i);
    return p.times.length;
  },
  scanner: (reads) => {
    const s = new OpenAIStreamScanner();
    for (let i = 0; i < reads.length; i++) s.push(reads[i]!, i);
    s.end(reads.length);
    return s.contentEvents;
  },
  'scanner keepText': (reads) => {
    const s = new OpenAIStreamScanner({ keepText: true });
    for (let i = 0; i < reads.length; i++) s.push(reads[i]!, i);
    s.end(reads.length);
    return s.contentEvents;
  },
  // What a completed --keep-text record costs on top: the one decode of the kept text, then the
  // scrub of the run's secrets from it (HttpTarget.send), once per record, never per chunk.
  'keepText+decode': (reads) => {
    const s = new OpenAIStreamScanner({ keepText: true });
    for (let i = 0; i < reads.length; i++) s.push(reads[i]!, i);
    s.end(reads.length);
    if ((s.text ?? '').length === 0) throw new Error('no text kept');
    return s.contentEvents;
  },
  'keepText+scrub': (reads) => {
    const s = new OpenAIStreamScanner({ keepText: true });
    for (let i = 0; i < reads.length; i++) s.push(reads[i]!, i);
    s.end(reads.length);
    if (BENCH_REDACTOR.scrubKnown(s.text ?? '').length === 0) throw new Error('no text kept');
    return s.contentEvents;
  },
};

/** A run with an API key, a Bearer header and a URL query secret. */
const BENCH_REDACTOR = Redactor.forTarget({ apiKey: 'sk-bench-0000', headers: { Authorization: 'Bearer tok-bench-1111' }, baseUrl: 'http://h/v1?api_key=q-bench-2222' });

export interface ParseOptions {
  events: number;
  /** bytes per read; 0: one event per read */
  read: number;
  rounds: number;
  /** OpenAI-style chunks that vary beyond the content string (the template never matches) */
  varying?: boolean;
}

export function runParse(opts: ParseOptions): ParseResult[] {
  const reads = streamReads(opts.events, opts.read, opts.varying === true);
  const bytes = reads.reduce((a, r) => a + r.length, 0);
  const names = Object.keys(PARSERS);
  const rates: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (const n of names) PARSERS[n]!(reads.slice(0, 200)); // warm-up
  for (let r = 0; r < opts.rounds; r++) {
    for (const n of names) {
      const t0 = performance.now();
      const got = PARSERS[n]!(reads);
      const dt = performance.now() - t0;
      if (got !== opts.events) throw new Error(`${n}: ${got} content events, expected ${opts.events}`);
      rates[n]!.push((got / dt) * 1000);
    }
  }
  const base = median(rates.plain!);
  return names.map((n) => {
    const ev = median(rates[n]!);
    return { parser: n, eventsPerS: ev, mbPerS: (ev * (bytes / opts.events)) / 1e6, ratio: ev / base };
  });
}

export function printParse(rows: ParseResult[], opts: ParseOptions): void {
  const what = opts.varying ? 'OpenAI-style chunks with a varying obfuscation field (~260 B each)' : `vLLM chat chunks (${firehoseBlock.eventBytes} B each)`;
  console.log(`\n== pure parse: ${fmt(opts.events)} ${what} in ${opts.read === 0 ? 'one-event' : `${fmt(opts.read)}-byte`} reads, median of ${opts.rounds} rounds`);
  console.log('parser               events/s      MB/s   vs plain');
  for (const r of rows) console.log(`${r.parser.padEnd(18)} ${fmt(r.eventsPerS).padStart(10)}  ${fmt(r.mbPerS).padStart(8)}   ${fmt(r.ratio, 2).padStart(6)}×`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { events: { type: 'string', default: '1000000' }, read: { type: 'string', default: '65536' }, rounds: { type: 'string', default: '5' }, varying: { type: 'boolean', default: false } } });
  const opts = { events: Number(values.events), read: Number(values.read), rounds: Number(values.rounds), varying: values.varying };
  console.log(`machine: ${machine()}`);
  printParse(runParse(opts), opts);
}
