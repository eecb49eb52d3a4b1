/** Routes one HTTP request: metadata endpoints, /metrics, the generation APIs and embeddings. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServerContext } from './context.js';
import { sendJson, startGeneration } from './generate.js';
import { startEmbeddings } from './embeddings.js';
import { closingSockets } from './sim-stream.js';
import { BadRequest, checkContext, parseRequest, parseTranscriptionRequest } from './request-parse.js';
import type { ParsedRequest } from './request-parse.js';
import { errorBody } from './wire.js';
import { tokenizeAnswer } from './tokenize.js';
import type { Api, Dialect } from './wire.js';
import { infermeterVersion } from '../../util/package-version.js';

const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** The APIs served, by path. */
const API_PATHS: ReadonlyMap<string, Api> = new Map([
  ['/v1/completions', 'completions'],
  ['/v1/chat/completions', 'chat'],
  ['/v1/embeddings', 'embeddings'],
  ['/v1/responses', 'responses'],
  ['/v1/messages', 'messages'],
  ['/generate_stream', 'tgi'],
  // SGLang's, and TGI's unary one: told apart by the body (parseRequest).
  ['/generate', 'sglang'],
  ['/v1/rerank', 'rerank'],
  ['/rerank', 'rerank'],
  ['/v2/rerank', 'rerank'],
  ['/score', 'score'],
  ['/v1/score', 'score'],
  ['/v1/audio/transcriptions', 'transcription'],
]);

/** Triton's generate extension: the model (and a version) in the path; any model name is served. */
const TRITON_PATH = /^\/v2\/models\/[^/]+(?:\/versions\/[^/]+)?\/generate(_stream)?$/;

/** GET /v1/models' answer: one model, with the context length vLLM states (also what `sim run` fingerprints in virtual time). */
export function modelsBody(modelName: string, maxModelLen: number | null, dialect: Dialect): string {
  const owned = dialect === 'vllm' ? 'vllm' : 'llamacpp';
  const model: Record<string, unknown> = { id: modelName, object: 'model', created: Math.floor(Date.now() / 1000), owned_by: owned, root: modelName };
  if (maxModelLen !== null) model['max_model_len'] = maxModelLen;
  return JSON.stringify({ object: 'list', data: [model] });
}

export function handle(ctx: ServerContext, req: IncomingMessage, res: ServerResponse): void {
  if (closingSockets.has(req.socket)) {
    req.socket.destroy();
    return;
  }
  const path = (req.url ?? '/').split('?')[0];
  const method = req.method ?? 'GET';
  if (method === 'GET' && path === '/health') {
    if (ctx.dialect === 'llamacpp') sendJson(res, 200, '{"status":"ok"}');
    else res.writeHead(200, { 'Content-Length': 0 }).end();
    return;
  }
  if (method === 'GET' && path === '/v1/models') {
    sendJson(res, 200, modelsBody(ctx.modelName, ctx.maxModelLen, ctx.dialect));
    return;
  }
  // vLLM serves its version here; llama-server does not.
  if (method === 'GET' && path === '/version' && ctx.dialect === 'vllm') {
    sendJson(res, 200, JSON.stringify({ version: infermeterVersion() }));
    return;
  }
  if (method === 'GET' && path === '/metrics') {
    const body = ctx.metrics.render(ctx.backend.stats());
    res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  if (method === 'POST' && path === '/tokenize') {
    readBody(req, (err, raw) => {
      try {
        if (err !== null) throw new BadRequest(err, 413, 'BadRequestError', 413);
        sendJson(res, 200, tokenizeAnswer(ctx, raw.toString('utf8')));
      } catch (e) {
        if (e instanceof BadRequest) sendJson(res, e.status, errorBody(e.message, e.type, e.code));
        else internalError(res, e);
      }
    });
    return;
  }
  const triton = TRITON_PATH.exec(path);
  const api: Api | null = triton !== null ? 'triton' : (API_PATHS.get(path) ?? null);
  // TGI's and Triton's generate_stream always stream, whatever the body says.
  const streamPath = path.endsWith('/generate_stream');
  if (api === null) {
    sendJson(res, 404, JSON.stringify({ detail: 'Not Found' }));
    return;
  }
  if (method !== 'POST') {
    sendJson(res, 405, JSON.stringify({ detail: 'Method Not Allowed' }), { Allow: 'POST' });
    return;
  }
  readBody(req, (err, raw) => {
    const arrivalMs = performance.now();
    if (err !== null) {
      sendJson(res, 413, errorBody(err, 'BadRequestError', 413));
      return;
    }
    let parsed: ParsedRequest;
    try {
      // A transcription is multipart/form-data: its bytes as they came (the audio is binary).
      parsed = api === 'transcription' ? parseTranscriptionRequest(raw, req.headers['content-type'], ctx.countTokens) : parseRequest(api, raw.toString('utf8'), ctx.blockSize, ctx.countTokens, streamPath);
      if (parsed.model !== null && parsed.model !== ctx.modelName) {
        throw new BadRequest(`The model \`${parsed.model}\` does not exist.`, 404, 'NotFoundError', 'model_not_found');
      }
      if (ctx.maxModelLen !== null) parsed.maxTokens = checkContext(parsed.promptTokens, parsed.maxTokens, ctx.maxModelLen, ctx.defaultMaxTokens);
    } catch (e) {
      if (e instanceof BadRequest) sendJson(res, e.status, errorBody(e.message, e.type, e.code));
      else internalError(res, e);
      return;
    }
    try {
      if (parsed.api === 'embeddings' || parsed.api === 'rerank' || parsed.api === 'score') startEmbeddings(ctx, parsed, res, arrivalMs);
      else startGeneration(ctx, parsed, res, arrivalMs);
    } catch (e) {
      // A bug must cost one request, never the server (and every other stream on it).
      internalError(res, e);
    }
  });
}

function readBody(req: IncomingMessage, done: (err: string | null, body: Buffer) => void): void {
  const parts: Buffer[] = [];
  let size = 0;
  let failed = false;
  req.on('data', (b: Buffer) => {
    size += b.length;
    if (size > MAX_BODY_BYTES) failed = true;
    if (!failed) parts.push(b);
  });
  req.on('end', () => done(failed ? `request body larger than ${MAX_BODY_BYTES} bytes` : null, Buffer.concat(parts)));
}

function internalError(res: ServerResponse, e: unknown): void {
  const msg = `simulator error: ${e instanceof Error ? e.message : String(e)}`;
  if (!res.headersSent) sendJson(res, 500, errorBody(msg, 'InternalServerError', 500));
  else res.destroy();
}
