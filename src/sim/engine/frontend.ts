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
 * streaming of the running ones (an API server short of CPU shows as rising TTFT). The process
 * serves its work in time order: a request sent before a step's end is served before that step's
 * tokens even when the driver reports the step first (virtual time sends arrivals at step ends).
 */
import type { EngineConfig } from './config.js';

export class Frontend {
  private freeAt = -Infinity;
  /** Streaming work not yet served: [time, ms] in time order. */
  private readonly streams: number[] = [];
  private head = 0;

  constructor(private readonly cfg: EngineConfig) {}

  /** When a request sent at `sentMs` with `promptTokens` reaches the engine (ms). */
  joinAt(sentMs: number, promptTokens: number): number {
    const c = this.cfg;
    const cpu = c.frontend_cpu_ms + (c.frontend_cpu_ms_per_1k_tokens * promptTokens) / 1000;
    // Streaming work that arrived before (or with) this request is served first.
    const st = this.streams;
    while (this.head < st.length && (st[this.head] as number) <= sentMs) {
      this.freeAt = Math.max(st[this.head] as number, this.freeAt) + (st[this.head + 1] as number);
      this.head += 2;
    }
    if (this.head > 4096) {
      st.splice(0, this.head);
      this.head = 0;
    }
    this.freeAt = Math.max(sentMs, this.freeAt) + cpu;
    return this.freeAt + c.frontend_latency_ms;
  }

  /** The API server's share of `tokens` output tokens emitted at `atMs`. */
  streamed(atMs: number, tokens: number): void {
    const u = this.cfg.frontend_cpu_ms_per_output_token;
    if (u > 0 && tokens > 0) this.streams.push(atMs, tokens * u);
  }
}
