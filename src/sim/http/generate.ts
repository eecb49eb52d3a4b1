/**
 * From a parsed request to a running generation: output length (EOS), faults, the stream
 * object, then the backend. Request-level faults answer here without touching the backend.
 */
import type { ServerResponse } from 'node:http';
import type { GenRequest } from '../backend.js';
import { OOM_MESSAGE } from '../faults.js';
import type { FaultDecision } from '../faults.js';
import { naturalLength } from '../text.js';
import { answerTokens, chooseAnswer } from '../answer-mode.js';
import { reasoningTokensOf } from '../reasoning.js';
import type { ServerContext } from './context.js';
import type { ParsedRequest } from './request-parse.js';
import { SimStream } from './sim-stream.js';
import type { StreamFaultPlan } from './sim-stream.js';
import { ChunkFormat, errorBody, TranscriptionWire, type StreamWire } from './wire.js';
import { MessagesWire, ResponsesWire } from './event-wire.js';
import { SglangWire, TgiWire, TritonWire } from './native-wire.js';

function sendJson(res: ServerResponse, status: number, body: string, extra?: Record<string, string>): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), ...extra });
  res.end(body);
}

export { sendJson };

const headerText = (v: string | string[] | undefined): string | null => (typeof v === 'string' ? v : Array.isArray(v) ? (v[0] ?? null) : null);

export function startGeneration(ctx: ServerContext, p: ParsedRequest, res: ServerResponse, arrivalMs: number): void {
  const id = ctx.nextId++;
  const maxTokens = p.maxTokens ?? ctx.defaultMaxTokens;
  const words = answerWords(ctx, p);
  // An answer ends where its text ends (ignore_eos does not pad it), or is cut at max_tokens.
  const natural = words ? Math.min(words.length, maxTokens) : p.ignoreEos || !Number.isFinite(ctx.eosMeanTokens) ? maxTokens : naturalLength(ctx.rand, ctx.eosMeanTokens, maxTokens);
  const finishReason = words ? (words.length <= maxTokens ? 'stop' : 'length') : natural < maxTokens ? 'stop' : 'length';
  const fault = ctx.faults ? ctx.faults.decide(natural) : null;
  const out: Output = { natural, finishReason, words };
  if (fault && fault.headerDelayMs > 0) {
    const t = setTimeout(() => begin(ctx, p, res, id, out, fault, performance.now()), fault.headerDelayMs);
    res.on('close', () => clearTimeout(t));
    return;
  }
  begin(ctx, p, res, id, out, fault, arrivalMs);
}

/** What a request generates: its length, why it stops, and (answer mode) the text of each token. */
interface Output {
  natural: number;
  finishReason: 'stop' | 'length';
  words: string[] | null;
}

/** Answer mode: the tokens of the answer to a prompt in the key; null when off or the prompt is unknown. */
function answerWords(ctx: ServerContext, p: ParsedRequest): string[] | null {
  const a = ctx.answers;
  if (a === null || p.promptText === null) return null;
  const known = a.key.get(p.promptText);
  if (known === undefined) return null;
  const words = answerTokens(chooseAnswer(known, a.rates, a.rand).text);
  return words.length > 0 ? words : null;
}

function begin(ctx: ServerContext, p: ParsedRequest, res: ServerResponse, id: number, out: Output, fault: FaultDecision | null, arrivalMs: number): void {
  const { natural, finishReason, words } = out;
  if (res.destroyed) return;
  let streamFault: StreamFaultPlan | null = fault?.stream ?? null;
  const rf = fault?.request;
  if (rf?.kind === '429') {
    sendJson(res, 429, errorBody('Rate limit reached for requests. Please try again later.', 'rate_limit_exceeded', 'rate_limit_exceeded'), {
      'Retry-After': String(rf.retryAfterS),
    });
    return;
  }
  if (rf?.kind === '500' || (rf?.kind === 'oom' && !p.stream)) {
    const msg = rf.kind === 'oom' ? OOM_MESSAGE : 'Internal server error (injected fault)';
    sendJson(res, 500, errorBody(msg, 'InternalServerError', 500));
    return;
  }
  if (rf?.kind === 'oom') {
    streamFault = { disconnectAtToken: -1, stallAtToken: -1, stallMs: 0, malformedAtToken: -1, errorAtToken: Math.min(1, natural - 1), errorMessage: OOM_MESSAGE };
  }
  const fmt = wireFor(ctx, p, id);
  const gen: GenRequest = { id, arrivalMs, promptTokens: p.promptTokens, outputTokens: natural, blockHashes: p.blockHashes };
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
      keepGroundTruth: ctx.groundTruth !== null,
      traceparent: ctx.spans ? headerText(res.req?.headers.traceparent) : null,
      faults: streamFault,
      // An answer is all answer: no reasoning tokens before it.
      reasoningTokens: (p.api === 'chat' || p.api === 'responses' || p.api === 'messages') && !words ? reasoningTokensOf(ctx.reasoning, natural) : 0,
      ...(words ? { words } : {}),
    },
    ctx.backend,
    ctx.metrics,
    ctx.listener,
  );
  ctx.backend.submit(gen, stream);
  // Headers after submit: a request the backend refuses at once gets a plain 400 instead.
  if (p.stream && !res.headersSent && !res.writableEnded) {
    // llama.cpp advertises keep-alive and then closes anyway (sim-stream.ts); otherwise Node
    // decides, honouring a client's `Connection: close`.
    const headers: Record<string, string> = { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache' };
    if (llama) headers['Connection'] = 'keep-alive';
    res.writeHead(200, headers);
    res.flushHeaders();
  }
}

/** The response's wire format: the API's own, in the server's dialect for the OpenAI ones. */
function wireFor(ctx: ServerContext, p: ParsedRequest, id: number): StreamWire {
  const created = Math.floor(Date.now() / 1000);
  switch (p.api) {
    case 'responses':
      return new ResponsesWire(`resp_sim${id}`, created, ctx.modelName);
    case 'messages':
      return new MessagesWire(`msg_sim${id}`, ctx.modelName, p.promptTokens);
    case 'tgi':
      return new TgiWire(p.promptTokens);
    case 'sglang':
      return new SglangWire(`sim${id}`, p.promptTokens);
    case 'triton':
      return new TritonWire(ctx.modelName);
    case 'transcription':
      return new TranscriptionWire(`trsc-sim${id}`, created, ctx.modelName, p.audioSeconds ?? 0);
    case 'chat':
      return new ChunkFormat(ctx.dialect, 'chat', `chatcmpl-sim${id}`, created, ctx.modelName, ctx.reasoning?.field);
    default:
      return new ChunkFormat(ctx.dialect, 'completions', `cmpl-sim${id}`, created, ctx.modelName, ctx.reasoning?.field);
  }
}
