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
 * and [DONE]. Query `events` sets the count (default 100000).
 */
import http from 'node:http';
import { firehoseBlock, firehoseHead, firehoseTail } from './firehose-chunks.js';

const blockEvents = 256;
const block = firehoseBlock(blockEvents);

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  const events = Math.max(0, Number(url.searchParams.get('events') ?? 100000));
  req.resume();
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
});

server.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  if (addr && typeof addr === 'object') process.stdout.write(`PORT ${addr.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
