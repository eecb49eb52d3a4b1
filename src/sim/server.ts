/**
 * The simulator's OpenAI-compatible HTTP server (real-time driver). Routes (http/router.ts):
 * GET /v1/models, GET /version, GET /health, GET /metrics, POST /tokenize, POST /v1/completions, POST /v1/chat/completions.
 * Timing comes from a Backend: fixed delays or the engine model. Works many times per
 * process; close() destroys open sockets at once; restart() refuses connections for a while.
 */
import { DEFAULT_ANSWER_RATES, type AnswerModeOptions } from './answer-mode.js';
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import type { BackendStats } from './backend.js';
import { createBackend } from './create-backend.js';
import type { TimingOptions } from './create-backend.js';
import { FaultInjector } from './faults.js';
import type { FaultOptions } from './faults.js';
import { GroundTruth } from './ground-truth.js';
import { SpanExporter, spanOfStream } from './span-export.js';
import type { GroundTruthEntry } from './ground-truth.js';
import type { ServerContext } from './http/context.js';
import { handle } from './http/router.js';
import type { SimStream } from './http/sim-stream.js';
import type { Dialect } from './http/wire.js';
import type { LatenessStats } from './lateness.js';
import { SimMetrics } from './metrics/sim-metrics.js';
import { simIdentity } from './identity.js';
import { estimateTokens, mulberry32 } from './text.js';
import type { ReasoningOptions } from './reasoning.js';

export type { TimingOptions } from './create-backend.js';
export type { FaultOptions } from './faults.js';
export type { GroundTruthEntry } from './ground-truth.js';

export interface SimServerOptions {
  /** Default '127.0.0.1'. */
  host?: string;
  /** Default 0 (a random free port). */
  port?: number;
  /** Served model id, default 'sim-llama-3.1-8b'. */
  modelName?: string;
  /** Default { kind: 'fixed', prefillMs: 50, perTokenMs: 10 }. */
  timing?: TimingOptions;
  /** Wire quirks of a real server, default 'vllm'. */
  dialect?: Dialect;
  /** Send usage in streams even when stream_options.include_usage is not asked. */
  usageAlways?: boolean;
  /** Output limit when the request sets no max_tokens, default 128. */
  defaultMaxTokens?: number;
  /** Mean natural output length (tokens) when ignore_eos is off; Infinity = never stop early. Default 256. */
  eosMeanTokens?: number;
  /** Seed of EOS lengths, default 0. */
  seed?: number;
  faults?: FaultOptions;
  /** Append one JSON line of ground truth per finished request to this file. */
  groundTruthPath?: string;
  /** Keep ground truth in memory (SimServer.groundTruth). */
  collectGroundTruth?: boolean;
  /** Export a span per finished request to this OTLP endpoint, as vLLM's --otlp-traces-endpoint: an OTLP/HTTP traces URL (…/v1/traces) or grpc://HOST:PORT for OTLP/gRPC (span-export.ts). */
  otlpTracesEndpoint?: string;
  /** A real tokenizer's count for prompt text (also what POST /tokenize answers); default: the shared estimate (text.ts). */
  countTokens?: (text: string) => number;
  /** Reasoning mode: chat responses start with reasoning tokens (reasoning.ts). */
  reasoning?: ReasoningOptions;
  /** The engine preset the timing came from (engine timing; default vllm-v1), named in the info series (identity.ts). */
  enginePreset?: string;
  /** Context length stated in /v1/models and /tokenize; default: the engine model's, 131,072 with fixed timing. */
  maxModelLen?: number;
  /** Where the engine's overload warning goes (late-steps.ts); default: nowhere, the count is in /metrics. */
  warn?: (line: string) => void;
  /** Answer mode: prompts found in the key get real answers at the given rates (answer-mode.ts). */
  answers?: AnswerModeOptions;
  /**
   * The backend's clock (ms on performance.now's scale; default performance.now). Tests pass one
   * running ahead to make every step late without loading the machine.
   */
  backendClock?: () => number;
}

export interface LatenessSummary {
  count: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

export interface SimServer {
  /** http://HOST:PORT (no trailing slash). */
  url: string;
  port: number;
  /** Posts the spans of finished requests now (otlpTracesEndpoint); resolves when posted. */
  flushSpans(): Promise<void>;
  close(): Promise<void>;
  /** Refuse connections for downMs, then serve again with counters reset. Resolves when back. */
  restart(downMs: number): Promise<void>;
  /** Ground truth collected so far (collectGroundTruth). */
  readonly groundTruth: GroundTruthEntry[];
  /** Scheduler state now (running, waiting, KV usage, cumulative counters). */
  stats(): BackendStats;
  /** Lateness against the schedule: per stream served (fixed timing) or per step end (engine). */
  lateness(): LatenessSummary;
  /** Starts a new lateness measurement window. */
  resetLateness(): void;
}

/** What fixed-delay mode states as the context length: the default model profile's (Llama-3.1-8B). */
const FIXED_TIMING_MAX_MODEL_LEN = 131_072;

export async function startSimServer(opts: SimServerOptions = {}): Promise<SimServer> {
  const timing = opts.timing ?? { kind: 'fixed', prefillMs: 50, perTokenMs: 10 };
  const first = createBackend(timing, opts.warn, opts.backendClock);
  const modelName = opts.modelName ?? 'sim-llama-3.1-8b';
  const gt = opts.groundTruthPath || opts.collectGroundTruth ? new GroundTruth(opts.groundTruthPath, opts.collectGroundTruth ?? false) : null;
  const spans = opts.otlpTracesEndpoint ? new SpanExporter(opts.otlpTracesEndpoint, 'infermeter-sim', opts.warn ?? (() => {})) : null;
  const ctx: ServerContext = {
    modelName,
    dialect: opts.dialect ?? 'vllm',
    usageAlways: opts.usageAlways ?? false,
    defaultMaxTokens: opts.defaultMaxTokens ?? 128,
    eosMeanTokens: opts.eosMeanTokens ?? 256,
    rand: mulberry32(opts.seed ?? 0),
    backend: first.backend,
    blockSize: first.blockSize,
    maxModelLen: opts.maxModelLen ?? first.maxModelLen ?? FIXED_TIMING_MAX_MODEL_LEN,
    countTokens: opts.countTokens ?? estimateTokens,
    nextId: 1,
    metrics: new SimMetrics(modelName, opts.dialect ?? 'vllm', simIdentity(timing, opts.enginePreset ?? null)),
    faults: opts.faults ? new FaultInjector(opts.faults) : null,
    groundTruth: gt,
    spans,
    listener: {
      onStreamEnd: (s, completed) => {
        gt?.add(entryOf(s, completed));
        const span = spans && completed ? spanOfStream(s, s.opts.traceparent ?? null, modelName) : null;
        if (span) spans!.add(span);
      },
    },
    reasoning: opts.reasoning ?? null,
    // Its own stream (seed + a constant), so answer draws do not shift the EOS lengths of other requests.
    answers: opts.answers && opts.answers.key.size > 0 ? { key: opts.answers.key, rates: { ...DEFAULT_ANSWER_RATES, ...opts.answers.rates }, rand: mulberry32((opts.seed ?? 0) ^ 0x5eed_a115) } : null,
  };
  const sockets = new Set<Socket>();
  const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => handle(ctx, req, res));
  server.on('connection', (s: Socket) => {
    s.setNoDelay(true);
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const host = opts.host ?? '127.0.0.1';
  const listen = (port: number): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // A deep accept backlog (Node's default is 511): thousands of clients may connect at once.
      server.listen({ port, host, backlog: 4096 }, () => {
        server.off('error', reject);
        resolve();
      });
    });
  const stopListening = (): Promise<void> =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    });
  await listen(opts.port ?? 0);
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  let closing: Promise<void> | null = null;
  let restartTimer: NodeJS.Timeout | null = null;

  const restart = async (downMs: number): Promise<void> => {
    ctx.backend.close();
    await stopListening();
    const next = createBackend(timing, opts.warn, opts.backendClock);
    ctx.backend = next.backend;
    ctx.metrics.reset(next.backend.stats());
    await new Promise((r) => setTimeout(r, downMs));
    if (closing) return;
    await listen(port);
  };
  const r = opts.faults?.restart;
  if (r) {
    restartTimer = setTimeout(() => void restart(r.downMs), r.atMs);
    restartTimer.unref();
  }
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    restart,
    get groundTruth() {
      return gt?.entries ?? [];
    },
    flushSpans: () => spans?.flush() ?? Promise.resolve(),
    stats: () => ctx.backend.stats(),
    lateness: () => latenessSummary((ctx.backend as { lateness?: LatenessStats }).lateness),
    resetLateness: () => (ctx.backend as { lateness?: LatenessStats }).lateness?.reset(),
    close() {
      closing ??= (async () => {
        if (restartTimer) clearTimeout(restartTimer);
        ctx.backend.close();
        if (server.listening) await stopListening();
        await spans?.close();
        await gt?.close();
      })();
      return closing;
    },
  };
}

function latenessSummary(l: LatenessStats | undefined): LatenessSummary {
  if (!l) return { count: 0, p50_ms: 0, p99_ms: 0, max_ms: 0 };
  return { count: l.count, p50_ms: l.percentile(50), p99_ms: l.percentile(99), max_ms: l.maxMs };
}

function entryOf(s: SimStream, completed: boolean): GroundTruthEntry {
  const n = s.emitted;
  return {
    id: s.req.id,
    time_origin_ms: performance.timeOrigin,
    arrival_ms: s.req.arrivalMs,
    admitted_ms: Number.isNaN(s.admitMs) ? null : s.admitMs,
    token_ms: s.tokenMs ? Array.from(s.tokenMs.subarray(0, n)) : [],
    written_ms: s.writtenMs ? Array.from(s.writtenMs.subarray(0, s.writtenUpTo)) : [],
    end_ms: Number.isNaN(s.endMs) ? null : s.endMs,
    completed,
    prompt_tokens: s.req.promptTokens,
    output_tokens: n,
  };
}
