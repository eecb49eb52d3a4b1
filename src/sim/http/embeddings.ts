/**
 * /v1/embeddings in the simulator: a batch of inputs costs one prefill of all their tokens (the
 * backend times it as a request of one output token, whose time is the prefill's), then one JSON
 * body as vLLM's pooling server writes it: `{"id","object":"list","created","model","data":[{
 * "index","object":"embedding","embedding":[…]}…],"usage":{"prompt_tokens","total_tokens"}}`.
 * The vectors have EMBEDDING_DIM values drawn from the request and input numbers: a well-formed
 * answer, not a meaningful one.
 */
import type { ServerResponse } from 'node:http';
import type { GenRequest, TokenSink } from '../backend.js';
import type { ServerContext } from './context.js';
import type { ParsedRequest } from './request-parse.js';
import { errorBody } from './wire.js';

export const EMBEDDING_DIM = 32;

/** The answer body for `inputs` embeddings of request `id`. */
export function embeddingsBody(id: number, created: number, model: string, inputs: number, promptTokens: number): string {
  const data: string[] = [];
  for (let i = 0; i < inputs; i++) {
    const v: string[] = [];
    let x = (id * 7919 + i * 104729 + 1) >>> 0;
    for (let d = 0; d < EMBEDDING_DIM; d++) {
      x = Math.imul(x ^ (x >>> 13), 0x5bd1e995) >>> 0;
      v.push(((x / 0xffffffff) * 2 - 1).toFixed(6));
    }
    data.push(`{"index":${i},"object":"embedding","embedding":[${v.join(',')}]}`);
  }
  return `{"id":"embd-sim${id}","object":"list","created":${created},"model":${JSON.stringify(model)},"data":[${data.join(',')}],"usage":{"prompt_tokens":${promptTokens},"total_tokens":${promptTokens},"completion_tokens":0}}`;
}

/** A score per document in (0, 1), drawn from the request and document numbers: well-formed, not meaningful. */
function scoreOf(id: number, i: number): string {
  const x = Math.imul((id * 7919 + i * 104729 + 1) >>> 0, 0x5bd1e995) >>> 0;
  return (0.001 + (x / 0xffffffff) * 0.998).toFixed(6);
}

/** vLLM's RerankResponse: one result per document (top_n 0: all), best first. */
export function rerankBody(id: number, model: string, inputs: number, promptTokens: number): string {
  const results: Array<{ i: number; s: string }> = [];
  for (let i = 0; i < inputs; i++) results.push({ i, s: scoreOf(id, i) });
  results.sort((a, b) => Number(b.s) - Number(a.s) || a.i - b.i);
  const r = results.map(({ i, s }) => `{"index":${i},"document":{"text":null},"relevance_score":${s}}`).join(',');
  return `{"id":"rerank-sim${id}","model":${JSON.stringify(model)},"usage":{"prompt_tokens":${promptTokens},"total_tokens":${promptTokens}},"results":[${r}]}`;
}

/** vLLM's ScoreResponse: one score per document, in order. */
export function scoreBody(id: number, created: number, model: string, inputs: number, promptTokens: number): string {
  const data: string[] = [];
  for (let i = 0; i < inputs; i++) data.push(`{"index":${i},"object":"score","score":${scoreOf(id, i)}}`);
  return `{"id":"score-sim${id}","object":"list","created":${created},"model":${JSON.stringify(model)},"data":[${data.join(',')}],"usage":{"prompt_tokens":${promptTokens},"total_tokens":${promptTokens},"completion_tokens":0}}`;
}

export function startEmbeddings(ctx: ServerContext, p: ParsedRequest, res: ServerResponse, arrivalMs: number): void {
  const id = ctx.nextId++;
  const gen: GenRequest = { id, arrivalMs, promptTokens: p.promptTokens, outputTokens: 1, blockHashes: p.blockHashes };
  let admitMs = NaN;
  let firstMs = NaN;
  let done = false;
  res.on('close', () => {
    if (done) return;
    done = true;
    ctx.backend.cancel(id);
  });
  const sink: TokenSink = {
    onAdmit: (at) => {
      admitMs = at;
    },
    onToken: (_k, at) => {
      // The "token" is the end of the prefill: the embeddings are ready.
      firstMs = at;
      ctx.metrics.onFirstToken(p.promptTokens, arrivalMs, at);
    },
    flush: () => {},
    onDone: (at) => {
      if (done) return;
      done = true;
      ctx.metrics.onRequestEnd('stop', arrivalMs, admitMs, firstMs, at, 0, p.promptTokens);
      const created = Math.floor(Date.now() / 1000);
      const body =
        p.api === 'rerank' ? rerankBody(id, ctx.modelName, p.inputs, p.promptTokens) : p.api === 'score' ? scoreBody(id, created, ctx.modelName, p.inputs, p.promptTokens) : embeddingsBody(id, created, ctx.modelName, p.inputs, p.promptTokens);
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    },
    onFail: (message, status) => {
      if (done) return;
      done = true;
      ctx.metrics.onRequestEnd('abort', arrivalMs, admitMs, firstMs, NaN, 0);
      const body = errorBody(message, status === 400 ? 'BadRequestError' : 'InternalServerError', status);
      res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    },
  };
  ctx.backend.submit(gen, sink);
}
