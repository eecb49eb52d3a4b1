/**
 * The simulator's OpenAI-compatible HTTP server (real-time driver). Routes:
 * GET /v1/models, GET /health, GET /metrics, POST /v1/completions, POST /v1/chat/completions.
 * Timing comes from a Backend: fixed delays or the engine model. Works many times per
 * process; close() destroys open sockets at once.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Backend } from './backend.js';
import { createBackend } from './create-backend.js';
import type { TimingOptions } from './create-backend.js';
import { BadRequest, parseRequest } from './http/request-parse.js';
import type { ParsedRequest } from './http/request-parse.js';
import { SimStream } from './http/sim-stream.js';
import type { StreamListener } from './http/sim-stream.js';
import { ChunkFormat, errorBody } from './http/wire.js';
import type { Api, Dialect } from './http/wire.js';
import { mulberry32, naturalLength } from './text.js';

export type { TimingOptions } from './create-backend.js';

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
  /** Seed of EOS lengths and output words, default 0. */
  seed?: number;
}

export interface SimServer {
  /** http://HOST:PORT (no trailing slash). */
  url: string;
  port: number;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;

interface Ctx {
  modelName: string;
  dialect: Dialect;
  usageAlways: boolean;
  defaultMaxTokens: number;
  eosMeanTokens: number;
  rand: () => number;
  backend: Backend;
  blockSize: number;
  nextId: number;
  listener: StreamListener;
}

export async function startSimServer(opts: SimServerOptions = {}): Promise<SimServer> {
  const { backend, blockSize } = createBackend(opts.timing ?? { kind: 'fixed', prefillMs: 50, perTokenMs: 10 });
  const ctx: Ctx = {
    modelName: opts.modelName ?? 'sim-llama-3.1-8b',
    dialect: opts.dialect ?? 'vllm',
    usageAlways: opts.usageAlways ?? false,
    defaultMaxTokens: opts.defaultMaxTokens ?? 128,
    eosMeanTokens: opts.eosMeanTokens ?? 256,
    rand: mulberry32(opts.seed ?? 0),
    backend,
    blockSize,
    nextId: 1,
    listener: { onStreamEnd: () => undefined },
  };
  const sockets = new Set<Socket>();
  const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => handle(ctx, req, res));
  server.on('connection', (s: Socket) => {
    s.setNoDelay(true);
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        backend.close();
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      return closing;
    },
  };
}

function sendJson(res: ServerResponse, status: number, body: string, extra?: Record<string, string>): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), ...extra });
  res.end(body);
}

function handle(ctx: Ctx, req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '/').split('?')[0];
  const method = req.method ?? 'GET';
  if (method === 'GET' && path === '/health') {
    if (ctx.dialect === 'llamacpp') sendJson(res, 200, '{"status":"ok"}');
    else res.writeHead(200, { 'Content-Length': 0 }).end();
    return;
  }
  if (method === 'GET' && path === '/v1/models') {
    const data = [
      { id: ctx.modelName, object: 'model', created: Math.floor(Date.now() / 1000), owned_by: ctx.dialect === 'vllm' ? 'vllm' : 'llamacpp', root: ctx.modelName },
    ];
    sendJson(res, 200, JSON.stringify({ object: 'list', data }));
    return;
  }
  const api: Api | null = path === '/v1/completions' ? 'completions' : path === '/v1/chat/completions' ? 'chat' : null;
  if (api === null) {
    sendJson(res, 404, JSON.stringify({ detail: 'Not Found' }));
    return;
  }
  if (method !== 'POST') {
    sendJson(res, 405, JSON.stringify({ detail: 'Method Not Allowed' }), { Allow: 'POST' });
    return;
  }
  readBody(req, (err, raw) => {
    if (err !== null) {
      sendJson(res, 413, errorBody(err, 'BadRequestError', 413));
      return;
    }
    let parsed: ParsedRequest;
    try {
      parsed = parseRequest(api, raw, ctx.blockSize);
      if (parsed.model !== null && parsed.model !== ctx.modelName) {
        throw new BadRequest(`The model \`${parsed.model}\` does not exist.`, 404, 'NotFoundError', 'model_not_found');
      }
    } catch (e) {
      if (e instanceof BadRequest) sendJson(res, e.status, errorBody(e.message, e.type, e.code));
      else throw e;
      return;
    }
    startGeneration(ctx, parsed, res);
  });
}

function readBody(req: IncomingMessage, done: (err: string | null, body: string) => void): void {
  const parts: Buffer[] = [];
  let size = 0;
  let failed = false;
  req.on('data', (b: Buffer) => {
    size += b.length;
    if (size > MAX_BODY_BYTES) {
      failed = true;
      req.resume();
      return;
    }
    if (!failed) parts.push(b);
  });
  req.on('end', () => done(failed ? `request body larger than ${MAX_BODY_BYTES} bytes` : null, Buffer.concat(parts).toString('utf8')));
}

function startGeneration(ctx: Ctx, p: ParsedRequest, res: ServerResponse): void {
  const id = ctx.nextId++;
  const maxTokens = p.maxTokens ?? ctx.defaultMaxTokens;
  const natural = p.ignoreEos || !Number.isFinite(ctx.eosMeanTokens) ? maxTokens : naturalLength(ctx.rand, ctx.eosMeanTokens, maxTokens);
  const finishReason = natural < maxTokens ? 'stop' : 'length';
  const prefix = p.api === 'chat' ? 'chatcmpl' : 'cmpl';
  const fmt = new ChunkFormat(ctx.dialect, p.api, `${prefix}-sim${id}`, Math.floor(Date.now() / 1000), ctx.modelName);
  const gen = { id, arrivalMs: performance.now(), promptTokens: p.promptTokens, outputTokens: natural, blockHashes: p.blockHashes };
  const llama = ctx.dialect === 'llamacpp';
  const stream = new SimStream(
    res,
    fmt,
    gen,
    {
      stream: p.stream,
      sendUsage: p.includeUsage || ctx.usageAlways || llama,
      finishReason,
      wordSeed: id * 13,
      closeAfter: llama,
      keepGroundTruth: false,
      faults: null,
    },
    ctx.backend,
    ctx.listener,
  );
  ctx.backend.submit(gen, stream);
  // Headers after submit: a request the backend refuses at once gets a plain 400 instead.
  if (p.stream && !res.headersSent && !res.writableEnded) {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
    });
    res.flushHeaders();
  }
}
