/**
 * HTTP/1.1 framing cost of the client's response parser on vLLM's wire shape: one chunk per
 * SSE event, 100,000 events read 64 KiB at a time. Prints chunks per second (framing only, no
 * SSE scan).   npx tsx bench/http1-framing.ts
 */
import { ResponseParser } from '../src/client/http1/response-parser.js';
const ev = 'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":" tok"},"finish_reason":null}]}\n\n';
const one = `${Buffer.byteLength(ev).toString(16)}\r\n${ev}\r\n`;
const body = Buffer.from(one.repeat(100_000));
const head = Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n');
function run(): number {
  let bytes = 0;
  const p = new ResponseParser({ onHead() {}, onBody(b) { bytes += b.length; }, onComplete() {} });
  p.push(head);
  for (let i = 0; i < body.length; i += 65536) p.push(body.subarray(i, Math.min(body.length, i + 65536)));
  return bytes;
}
for (let i = 0; i < 5; i++) run();
const t0 = performance.now();
for (let i = 0; i < 20; i++) run();
const ms = performance.now() - t0;
console.log(`response parser, one chunk per event: ${((20 * 100_000) / ms / 1000).toFixed(2)} M chunks/s`);
