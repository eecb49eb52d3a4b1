/* global Buffer, performance, setTimeout */
// Load generator for bench/sim-bench.ts, run as a separate process so the simulator keeps its
// core: opens N raw TCP connections, each streams one completion, counts bytes and its own CPU time.
// argv: port streams maxTokens rampMs. Prints one JSON line with its totals when all ended.
import { connect } from 'node:net';

const [port, streams, maxTokens, rampMs] = process.argv.slice(2).map(Number);
const body = JSON.stringify({ prompt: 'benchmark', max_tokens: maxTokens, ignore_eos: true, stream: true });
const req =
  `POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
  `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
let ended = 0;
let bytes = 0;
let errors = 0;
const t0 = performance.now();

function open() {
  const s = connect(port, '127.0.0.1');
  s.setNoDelay(true);
  s.on('connect', () => s.write(req));
  // count bytes only: the client must stay cheap so the server's figures are the server's
  s.on('data', (b) => (bytes += b.length));
  s.on('error', () => errors++);
  s.on('close', () => {
    if (++ended === streams) {
      const cpu = process.cpuUsage();
      console.log(JSON.stringify({ streams, ended, errors, bytes, wall_ms: performance.now() - t0, cpu_ms: (cpu.user + cpu.system) / 1000 }));
      process.exit(0);
    }
  });
}

for (let i = 0; i < streams; i++) setTimeout(open, (i * rampMs) / streams);
