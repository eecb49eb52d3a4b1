/**
 * Paced server for the timing-error benchmark: streams `max_tokens` chat chunks per request,
 * one every `perTokenMs` after a `prefillMs` delay, and records for each token the
 * performance.now() taken just before its bytes were handed to the socket (one raw chunk write,
 * not ServerResponse.write, which defers the write to the next tick). Unlike the
 * simulator's ground truth (each token's due time), this is when the token actually left, so
 * the client's error against it excludes the server's own timer lateness.
 *
 *   npx tsx bench/paced-server.ts <ground-truth.jsonl> [perTokenMs] [prefillMs] [stamp]
 *
 * `stamp`: each token's content is " <process.hrtime in ns>" taken at the same moment, so a
 * client that keeps the text carries the ground truth itself (bench/cli-timing.ts).
 *
 * Prints "PORT <n>". IPC: "clock" → { epoch }; "dump" → writes ground truth (JSON lines:
 * id, time_origin_ms, token_ms) to the file and answers { dumped, lateness: { p99_ms } }, where
 * lateness is how late its timers fired (information only).
 */
import http from 'node:http';
import { requestedTokens } from './server-lib.js';
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const out = process.argv[2] ?? '/tmp/infermeter-paced-gt.jsonl';
const perTokenMs = Number(process.argv[3] ?? 50);
const prefillMs = Number(process.argv[4] ?? 20);
const stamp = process.argv[5] === 'stamp';

interface Truth {
  id: number;
  time_origin_ms: number;
  token_ms: number[];
}
let truth: Truth[] = [];
let late: number[] = [];
let nextId = 1;

const WORDS = [' the', ' quick', ' brown', ' fox', ' jumps', ' over', ' a', ' lazy', ' dog', ' é'];

function chunk(id: number, content: string | null, finish: string | null): string {
  const delta = content === null ? '{}' : `{"content":${JSON.stringify(content)}}`;
  return `data: {"id":"chatcmpl-sim${id}","object":"chat.completion.chunk","created":1764400000,"model":"paced","choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish === null ? 'null' : `"${finish}"`}}]}\n\n`;
}

function stream(res: http.ServerResponse, tokens: number): void {
  const id = nextId++;
  const times: number[] = [];
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(`data: {"id":"chatcmpl-sim${id}","object":"chat.completion.chunk","created":1764400000,"model":"paced","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}\n\n`);
  const start = performance.now() + prefillMs;
  let k = 0;
  let gone = false;
  res.on('close', () => (gone = true));
  const tick = (): void => {
    if (gone) return;
    const due = start + k * perTokenMs;
    const content = stamp ? ` ${process.hrtime.bigint()}` : WORDS[k % WORDS.length]!;
    const ev = chunk(id, content, null);
    // One HTTP/1.1 chunk straight to the socket, as the simulator writes (src/sim/http/sim-stream.ts):
    // ServerResponse.write would cork the socket and write on the next tick, after the stamp.
    const framed = `${Buffer.byteLength(ev).toString(16)}\r\n${ev}\r\n`;
    const t = performance.now();
    late.push(t - due);
    times.push(t);
    res.socket!.write(framed);
    k++;
    if (k < tokens) {
      setTimeout(tick, Math.max(0, start + k * perTokenMs - performance.now()));
      return;
    }
    res.end(chunk(id, null, 'length') + 'data: [DONE]\n\n');
    truth.push({ id, time_origin_ms: performance.timeOrigin, token_ms: times });
  };
  setTimeout(tick, prefillMs);
}

const server = http.createServer((req, res) => {
  if (req.url === '/v1/models') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', data: [{ id: 'paced', object: 'model' }] }));
    return;
  }
  void requestedTokens(req).then((n) => stream(res, n));
});
server.on('connection', (s) => s.setNoDelay(true));
server.keepAliveTimeout = 600_000;
server.listen(0, '127.0.0.1', 8192, () => {
  const a = server.address();
  if (a && typeof a === 'object') process.stdout.write(`PORT ${a.port}\n`);
});

process.on('message', (m) => {
  if (m === 'clock') process.send?.({ epoch: performance.timeOrigin + performance.now() });
  if (m === 'dump') {
    writeFileSync(out, truth.map((e) => JSON.stringify(e)).join('\n') + '\n');
    const s = late.sort((a, b) => a - b);
    const p99 = s.length ? s[Math.min(s.length - 1, Math.floor(s.length * 0.99))]! : 0;
    truth = [];
    late = [];
    process.send?.({ dumped: true, lateness: { p99_ms: p99 } });
  }
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
