/**
 * Simulator benchmark (npx tsx bench/sim-bench.ts [--quick]). Two figures from issue 3:
 *  1. real time: ≥ 5,000 concurrent streams and ≥ 100,000 tokens/s from one server process
 *     (fixed timing, 50 ms/token), with step lateness p99 ≤ 2 ms; the load comes from a
 *     separate process (bench/sim-load-client.js) so it does not share the server's core;
 *  2. virtual time: one hour of 20 requests/s (Poisson, ≈ 72,000 requests) on H100 /
 *     Llama-3.1-8B in ≤ 10 s of wall time.
 * `--engine [--hardware h200]` runs part 1 on the engine model (step lateness of real engine
 * steps); `--max-tokens N` sets each stream's length.
 * Prints a JSON summary; targets are reported, not asserted.
 */
import { fork } from 'node:child_process';
import { loadavg, setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startSimServer } from '../src/sim/server.js';
import { mulberry32 } from '../src/sim/text.js';
import { runVirtual } from '../src/sim/virtual.js';
import type { VirtualRequest } from '../src/sim/virtual.js';

const quick = process.argv.includes('--quick');
const hardwareArg = process.argv.includes('--hardware') ? (process.argv[process.argv.indexOf('--hardware') + 1] as string) : 'h100';
/** `--streams N` and `--per-token-ms X` override the real-time load (defaults 5,000 and 50). */
function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}

async function realTime(streams: number, perTokenMs: number, maxTokens: number): Promise<Record<string, number | boolean | string>> {
  // --engine: the engine model (H100, Llama-3.1-8B, max_num_seqs = streams) instead of fixed delays
  const engine = process.argv.includes('--engine');
  const server = await startSimServer({
    timing: engine
      ? { kind: 'engine', hardware: hardwareArg, model: 'llama-3.1-8b', engine: { max_num_seqs: streams, tensor_parallel: arg('--tensor-parallel-size', 1) } }
      : { kind: 'fixed', prefillMs: 20, perTokenMs },
  });
  const rampMs = arg('--ramp-ms', 2000);
  const client = fork(fileURLToPath(new URL('./sim-load-client.js', import.meta.url)), [String(server.port), String(streams), String(maxTokens), String(rampMs)], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'], execArgv: [] });
  // The load generator runs at a lower priority, so it does not take the server's core.
  if (client.pid !== undefined) setPriority(client.pid, 10);
  let out = '';
  client.stdout?.on('data', (b: Buffer) => (out += b.toString()));
  // Measure a 4 s window while (nearly) all streams are open: wait for the ramp (the client
  // process needs a moment to start), stopping early if the count stops growing.
  const waitUntil = performance.now() + 15_000;
  let best = 0;
  let bestAt = performance.now();
  while (server.stats().running < streams * 0.99 && performance.now() < waitUntil) {
    await new Promise((r) => setTimeout(r, 50));
    const n = server.stats().running;
    if (n > best) [best, bestAt] = [n, performance.now()];
    else if (n > 0 && performance.now() - bestAt > 1500) break;
  }
  const windowMs = Math.min(4000, maxTokens * perTokenMs - rampMs - 1000);
  server.resetLateness();
  const runningAtStart = server.stats().running;
  const before = await fetchCounters(server.url);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, windowMs));
  const after = await fetchCounters(server.url);
  const peakRunning = Math.min(runningAtStart, server.stats().running);
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const lat = server.lateness();
  await new Promise<void>((r) => client.on('exit', () => r()));
  const c = JSON.parse(out.trim().split('\n').pop() ?? '{}') as { ended: number; errors: number; bytes: number; cpu_ms: number };
  await server.close();
  const tokensPerS = ((after - before) * 1000) / wall;
  return {
    timing: engine ? `engine ${hardwareArg} llama-3.1-8b tp ${arg('--tensor-parallel-size', 1)}` : `fixed ${perTokenMs} ms/token`,
    streams,
    concurrent_streams_in_window: peakRunning,
    tokens_per_s: Math.round(tokensPerS),
    server_cpu_fraction: Number(((cpu.user + cpu.system) / 1000 / wall).toFixed(3)),
    // CPU time (user + system, so the kernel's TCP work is included) per emitted token
    server_cpu_us_per_token: Number(((cpu.user + cpu.system) / Math.max(1, after - before)).toFixed(2)),
    load_average_1m: Number(loadavg()[0]!.toFixed(2)),
    lateness_p50_ms: lat.p50_ms,
    lateness_p99_ms: lat.p99_ms,
    lateness_max_ms: Number(lat.max_ms.toFixed(2)),
    ticks: lat.count,
    client_streams_ended: c.ended,
    client_errors: c.errors,
    client_bytes: c.bytes,
    client_cpu_s: Number((c.cpu_ms / 1000).toFixed(2)),
    meets_target: peakRunning >= 5000 && tokensPerS >= 100_000 && lat.p99_ms <= 2,
  };
}

async function fetchCounters(url: string): Promise<number> {
  const t = await (await fetch(`${url}/metrics`)).text();
  const m = /^vllm:generation_tokens_total\{[^}]*\} (\S+)$/m.exec(t);
  return Number(m?.[1] ?? 0);
}

function virtualHour(rate: number, seconds: number): Record<string, number | boolean> {
  const rand = mulberry32(42);
  const reqs: VirtualRequest[] = [];
  let t = 0;
  for (let i = 0; ; i++) {
    t += (-Math.log(1 - rand()) / rate) * 1000; // Poisson arrivals, ms
    if (t > seconds * 1000) break;
    // prompts 128–1,152 tokens, outputs 32–288 tokens (uniform)
    reqs.push({ id: i, scheduled_ms: t, prompt_tokens: 128 + Math.floor(rand() * 1024), max_tokens: 32 + Math.floor(rand() * 256) });
  }
  const { records, stats } = runVirtual({ hardware: 'h100', model: 'llama-3.1-8b', requests: reqs });
  const ttfts = records.map((r) => (r.first_token_ms ?? r.sent_ms) - r.sent_ms).sort((a, b) => a - b);
  return {
    requests: stats.requests,
    simulated_s: Math.round(stats.sim_duration_ms / 1000),
    wall_s: Number((stats.wall_ms / 1000).toFixed(2)),
    steps: stats.steps,
    generation_tokens: stats.generation_tokens,
    mean_batch_seqs: Number(stats.mean_step_seqs.toFixed(1)),
    ttft_p50_ms: Number((ttfts[Math.floor(ttfts.length / 2)] ?? 0).toFixed(1)),
    ttft_p99_ms: Number((ttfts[Math.floor(ttfts.length * 0.99)] ?? 0).toFixed(1)),
    meets_target: stats.wall_ms <= 10_000,
  };
}

const only = process.argv.find((a) => a === '--real' || a === '--virtual');
const result = {
  node: process.version,
  real_time: only === '--virtual' ? null : await realTime(arg('--streams', quick ? 1000 : 5000), arg('--per-token-ms', 50), arg('--max-tokens', quick ? 120 : 360)),
  virtual_time: only === '--real' ? null : virtualHour(20, quick ? 600 : 3600),
};
console.log(JSON.stringify(result, null, 2));
