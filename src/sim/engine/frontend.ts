/**
 * The serving front end on the TTFT path: an OpenAI server process that parses the request,
 * tokenizes the prompt and hands it to the engine. Its CPU work is serialized (one process, one
 * request at a time) and followed by a fixed latency (hops between processes, HTTP):
 *
 *   cpu_i   = frontend_cpu_ms + frontend_cpu_ms_per_1k_tokens × prompt_i / 1000
 *   done_i  = max(sent_i, done_{i−1}) + cpu_i          (a FIFO single-server queue)
 *   join_i  = done_i + frontend_latency_ms             (the engine sees the request)
 *
 * The same process streams every output token (detokenization, SSE framing):
 *   after a step ending at t that emitted n tokens, done = max(t, done) + n × frontend_cpu_ms_per_output_token
 * So at light load TTFT gains a constant; under load new requests also wait for the token
 * streaming of the running ones (an API server short of CPU shows as rising TTFT). Both drivers
 * call joinAt and streamed in time order.
 */
import type { EngineConfig } from './config.js';

export class Frontend {
  private freeAt = -Infinity;

  constructor(private readonly cfg: EngineConfig) {}

  /** When a request sent at `sentMs` with `promptTokens` reaches the engine (ms). */
  joinAt(sentMs: number, promptTokens: number): number {
    const c = this.cfg;
    const cpu = c.frontend_cpu_ms + (c.frontend_cpu_ms_per_1k_tokens * promptTokens) / 1000;
    this.freeAt = Math.max(sentMs, this.freeAt) + cpu;
    return this.freeAt + c.frontend_latency_ms;
  }

  /** The API server's share of `tokens` output tokens emitted at `atMs`. */
  streamed(atMs: number, tokens: number): void {
    const u = this.cfg.frontend_cpu_ms_per_output_token;
    if (u > 0 && tokens > 0) this.freeAt = Math.max(atMs, this.freeAt) + tokens * u;
  }
}
