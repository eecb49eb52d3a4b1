/**
 * The capacity self-test (capacity-check.ts does the arithmetic): for about a second, this
 * process drives streamed requests of the run's shape through the run's own HTTP client
 * (HttpTarget: the same request writing, SSE scanning and record filling as a run) as fast as a
 * stream source on 127.0.0.1 answers, at the run's per-thread concurrency, and counts what one
 * load thread completed and the event-loop delay it cost. The source runs in its own thread with
 * no delay between tokens, so the figure is the client's limit, not the source's.
 */
import { availableParallelism, loadavg, platform } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { HttpTarget } from '../client/http-client.js';
import { emptyRecord } from '../record/record.js';
import type { ProbeFigures } from './capacity-check.js';

export interface ProbeOptions {
  /** Streams in flight in the thread (the run's concurrency per load thread). */
  concurrency: number;
  /** Output tokens per request (the run's mean requested output length). */
  outputTokens: number;
  /** Measured part (ms) after a warm-up of a fifth of it; default 1000 (with the warm-up and the idle sample, ~1.5 s). */
  durationMs?: number;
}

/**
 * The measured part grows up to this many times `durationMs` while fewer requests than streams
 * have finished in it: on a crowded machine one round of streams can take longer than a second,
 * and a window with no finished request would say "0 req/s" of a client that merely ran slowly.
 */
const MAX_STRETCH = 2;

/** How long the idle event-loop delay is sampled before the load (ms). */
const IDLE_MS = 250;

/** The stream source: plain JS for a worker thread (eval), answering each POST with `n` SSE events, one write each. */
const SOURCE = `
const http = require('node:http');
const { parentPort } = require('node:worker_threads');
const ev = (text, finish) => 'data: ' + JSON.stringify({ id: 'p', object: 'text_completion', choices: [{ index: 0, text, finish_reason: finish }] }) + '\\n\\n';
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    let n = 16;
    try { n = Math.max(1, JSON.parse(body).max_tokens | 0); } catch {}
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let i = 0;
    const next = () => {
      if (i < n - 1) { res.write(ev(' a', null)); i++; setImmediate(next); return; }
      res.write(ev(' a', 'length'));
      res.end('data: ' + JSON.stringify({ id: 'p', object: 'text_completion', choices: [], usage: { prompt_tokens: 8, completion_tokens: n, total_tokens: n + 8 } }) + '\\n\\ndata: [DONE]\\n\\n');
    };
    next();
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
parentPort.on('message', () => server.close(() => process.exit(0)));
`;

async function startSource(): Promise<{ url: string; stop(): Promise<void> }> {
  const worker = new Worker(SOURCE, { eval: true });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      worker.postMessage('stop');
      await new Promise<void>((r) => worker.once('exit', () => r()));
    },
  };
}

/** Runs the self-test; what one load thread of this process drives, saturated. */
export async function probeCapacity(o: ProbeOptions): Promise<ProbeFigures> {
  const durationMs = o.durationMs ?? 1000;
  const warmupMs = durationMs / 5;
  const outputTokens = Math.max(1, Math.round(o.outputTokens));
  const concurrency = Math.max(1, Math.round(o.concurrency));
  // How late a due timer runs with nothing to do: the machine's own noise, before any load.
  const idle = monitorEventLoopDelay({ resolution: 1 });
  idle.enable();
  await new Promise((r) => setTimeout(r, IDLE_MS));
  idle.disable();
  const source = await startSource();
  const now = () => performance.now();
  const target = new HttpTarget({ baseUrl: source.url, path: '/v1/completions', model: 'capacity-probe', apiKey: null, headers: {}, extraBody: {}, stream: true, ignoreEos: true, timeoutMs: 10_000, keepText: false }, now);
  const prepared = target.prepare({ prompt: 'capacity probe', messages: null, prompt_tokens: 8, max_tokens: outputTokens, task: null, expected: null, session: null, turn: null });
  const lag = monitorEventLoopDelay({ resolution: 1 });
  const t0 = now();
  const measureFrom = t0 + warmupMs;
  const end = measureFrom + durationMs;
  const latest = measureFrom + durationMs * MAX_STRETCH;
  /** ok requests finished since measureFrom: when each ended, and its tokens. */
  const finished: Array<{ at: number; tokens: number }> = [];
  /** When the measured window closed (the first loop turn that found it over). */
  let closedAt: number | null = null;
  const open = (t: number): boolean => {
    if (closedAt !== null) return false;
    if (t < end || (finished.length < concurrency && t < latest)) return true;
    closedAt = t;
    return false;
  };
  let id = 0;
  let measuring = false;
  try {
    await target.preconnect(concurrency);
    const loop = async () => {
      while (open(now())) {
        const at = now();
        if (!measuring && at >= measureFrom) {
          measuring = true;
          lag.enable();
        }
        const rec = await target.send(emptyRecord(id++, at), prepared);
        if (rec.status === 'ok' && rec.end_ms >= measureFrom) finished.push({ at: rec.end_ms, tokens: rec.output_tokens });
      }
    };
    await Promise.all(Array.from({ length: concurrency }, loop));
  } finally {
    lag.disable();
    target.close();
    await source.stop();
  }
  // Finished inside the window: started in it, or late in the warm-up (a saturated thread's rate either way).
  const measuredMs = (closedAt ?? end) - measureFrom;
  const counted = finished.filter((f) => f.at <= measureFrom + measuredMs);
  const requests = counted.length;
  const tokens = counted.reduce((sum, f) => sum + f.tokens, 0);
  const seconds = measuredMs / 1000;
  return {
    requests_per_s: requests / seconds,
    output_tokens_per_s: tokens / seconds,
    dispatch_lag_p99_ms: lag.count > 0 ? lag.percentile(99) / 1e6 : 0,
    idle_lag_p99_ms: idle.count > 0 ? idle.percentile(99) / 1e6 : 0,
    concurrency,
    output_tokens: outputTokens,
    duration_ms: measuredMs,
    load_per_core: platform() === 'win32' ? null : loadavg()[0]! / availableParallelism(),
  };
}
