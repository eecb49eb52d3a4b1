/**
 * Firehose: a minimal OpenAI-compatible streaming server that sends chat-completion chunks as
 * fast as the socket takes them, for the ingestion benchmark. Run it in its own process so the
 * client under test has its core to itself:
 *
 *   npx tsx bench/firehose-server.ts            # prints "PORT <n>" on stdout
 *   curl -N 'http://127.0.0.1:<n>/v1/chat/completions?events=5'
 *
 * Each response: a role-only delta, `events` content chunks (vLLM's byte layout, pre-encoded in
 * ~64 KiB blocks so the server costs almost nothing per chunk), a finish chunk, a usage chunk
 * and [DONE]. GET: query `events` sets the count (default 100000). POST (what infermeter sends):
 * the body's `max_tokens` sets it. GET /v1/models lists the model `firehose`.
 */
import http from 'node:http';
import { requestedTokens } from './server-lib.js';
import { firehoseBlock, firehoseHead, firehoseTail } from './firehose-chunks.js';

const blockEvents = 256;
const block = firehoseBlock(blockEvents);

const MODELS = JSON.stringify({ object: 'list', data: [{ id: 'firehose', object: 'model', owned_by: 'bench' }] });

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  if (url.pathname === '/v1/models') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(MODELS);
    return;
  }
  if (req.method === 'POST') {
    void requestedTokens(req).then((n) => stream(res, n));
    return;
  }
  req.resume();
  stream(res, Math.max(0, Number(url.searchParams.get('events') ?? 100000)));
});

function stream(res: http.ServerResponse, events: number): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.socket?.setNoDelay(true);
  res.write(firehoseHead);
  let left = events;
  const pump = (): void => {
    while (left > 0) {
      let ok: boolean;
      if (left >= blockEvents) {
        ok = res.write(block);
        left -= blockEvents;
      } else {
        ok = res.write(block.subarray(0, firehoseBlock.eventBytes * left));
        left = 0;
      }
      if (!ok) {
        res.once('drain', pump);
        return;
      }
    }
    res.end(firehoseTail(events));
  };
  pump();
}

// Clients reuse keep-alive sockets across rounds; Node's 5 s default would close them between
// rounds and make a reused socket fail with ECONNRESET.
server.keepAliveTimeout = 600_000;
server.listen(0, '127.0.0.1', 1024, () => {
  const addr = server.address();
  if (addr && typeof addr === 'object') process.stdout.write(`PORT ${addr.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
