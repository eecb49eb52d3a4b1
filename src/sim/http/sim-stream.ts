/**
 * One HTTP response being generated. It is the TokenSink the backend drives: each onToken
 * adds one SSE event (streaming; written at flush) or nothing (non-streaming, the body is
 * written at onDone).
 * It feeds the server's metrics and, when asked, keeps the ground truth (emit time per token).
 */
import type { ServerResponse } from 'node:http';
import type { Backend, GenRequest, TokenSink } from '../backend.js';
import type { SimMetrics } from '../metrics/sim-metrics.js';
import { outputWord } from '../text.js';
import type { StreamWire, Usage } from './wire.js';
import { llamaTimings } from './wire.js';

/** Per-request stream faults decided at arrival (see ../faults.ts). Token indices are 0-based; −1 = off. */
export interface StreamFaultPlan {
  disconnectAtToken: number;
  stallAtToken: number;
  stallMs: number;
  malformedAtToken: number;
  /** An `{"error":…}` event instead of this token, then [DONE] (e.g. CUDA OOM mid-stream). */
  errorAtToken: number;
  errorMessage: string;
}

export interface StreamOptions {
  stream: boolean;
  /** Put `usage` in the stream (asked with include_usage, usageAlways, or llama.cpp). */
  sendUsage: boolean;
  finishReason: 'length' | 'stop';
  wordSeed: number;
  /** llama.cpp: close the TCP connection after the streamed response. */
  closeAfter: boolean;
  keepGroundTruth: boolean;
  /** The request's W3C traceparent header, continued by the span exporter (span-export.ts). */
  traceparent?: string | null;
  faults: StreamFaultPlan | null;
  /** Reasoning mode: the first this-many tokens are reasoning (0: none; chat only). */
  reasoningTokens: number;
  /** Answer mode: the text of each token (answer-mode.ts: answerTokens); absent: filler words. */
  words?: readonly string[];
}

/** A token's text as it goes inside a JSON string: escaped, and pure ASCII (\uXXXX), so the
 * latin1 fast path of writeEvent stays byte-exact. Filler words need none of this. */
function jsonStringBody(text: string): string {
  return JSON.stringify(text)
    .slice(1, -1)
    .replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Told when the response is finished, cut or failed. */
export interface StreamListener {
  onStreamEnd(s: SimStream, completed: boolean): void;
}

/**
 * Sockets closed after their streamed response (llama.cpp): the server closes the connection,
 * so a request that reaches it in the meantime (a client reusing it before the FIN arrived) is
 * never answered — the connection just closes, as with the real server. Without this Node would
 * serve it, and a connection could serve two responses, which llama.cpp never does.
 */
export const closingSockets = new WeakSet<object>();

export class SimStream implements TokenSink {
  admitMs = NaN;
  firstTokenMs = NaN;
  lastTokenMs = NaN;
  endMs = NaN;
  emitted = 0;
  /** Emit time of each token (ms, scheduled), only with keepGroundTruth. */
  readonly tokenMs: Float64Array | null;
  /** When each token's bytes were handed to the socket (ms), only with keepGroundTruth. */
  readonly writtenMs: Float64Array | null;
  /** Tokens before this index have a written time (a fault can leave the last ones unwritten). */
  writtenUpTo = 0;
  private finished = false;
  /** SSE events produced since the last flush. */
  private pending = '';
  /** Answer mode: each token escaped for the wire. */
  private readonly wireWords: string[] | null;

  constructor(
    readonly res: ServerResponse,
    readonly fmt: StreamWire,
    readonly req: GenRequest,
    readonly opts: StreamOptions,
    private readonly backend: Backend,
    private readonly metrics: SimMetrics,
    private readonly listener: StreamListener,
  ) {
    this.wireWords = opts.words ? opts.words.map(jsonStringBody) : null;
    this.tokenMs = opts.keepGroundTruth ? new Float64Array(req.outputTokens) : null;
    this.writtenMs = opts.keepGroundTruth ? new Float64Array(req.outputTokens) : null;
    res.on('close', this.onClose);
  }

  /** Client went away (or we destroyed the socket) before the end: stop generating. */
  private readonly onClose = (): void => {
    if (this.finished) return;
    this.finished = true;
    this.backend.cancel(this.req.id);
    this.metrics.onRequestEnd('abort', this.req.arrivalMs, this.admitMs, this.firstTokenMs, this.lastTokenMs, this.emitted);
    this.listener.onStreamEnd(this, false);
  };

  onAdmit(atMs: number): void {
    this.admitMs = atMs;
  }

  onToken(k: number, atMs: number): void {
    if (this.finished) return;
    if (k === 0) {
      this.firstTokenMs = atMs;
      this.metrics.onFirstToken(this.req.promptTokens, this.req.arrivalMs, atMs);
      this.metrics.onToken(null);
    } else {
      this.metrics.onToken(atMs - this.lastTokenMs);
    }
    this.lastTokenMs = atMs;
    if (this.tokenMs) this.tokenMs[k] = atMs;
    this.emitted = k + 1;
    const f = this.opts.faults;
    if (f && this.faultAt(f, k)) return;
    if (!this.opts.stream) return;
    const last = k === this.req.outputTokens - 1;
    const word = this.wireWords?.[k] ?? outputWord(this.opts.wordSeed, k);
    // The head first: a format may number its events (Responses' sequence_number).
    if (k === 0) this.pending += this.fmt.head();
    this.pending += this.fmt.token(word, last ? this.opts.finishReason : null, k < this.opts.reasoningTokens);
  }

  /** Writes what is pending: the tokens before `upTo` (all produced ones unless a fault falls on the last). */
  flush(upTo = this.emitted): void {
    if (this.pending.length === 0) return;
    const out = this.pending;
    this.pending = '';
    this.markWritten(upTo);
    this.writeEvent(out);
  }

  /** Ground truth: the tokens produced since the last write, up to `upTo`, leave now. */
  private markWritten(upTo = this.emitted): void {
    const w = this.writtenMs;
    if (!w || this.writtenUpTo >= upTo) return;
    w.fill(performance.now(), this.writtenUpTo, upTo);
    this.writtenUpTo = upTo;
  }

  /**
   * Hot path: the events of one flush as one HTTP/1.1 chunk written straight to the socket
   * (`<hex length>\r\n<events>\r\n`), skipping ServerResponse.write's per-call cork/nextTick
   * and its four-part chunk framing: one socket write per flush, which cut the simulator's CPU
   * per token (bench/sim-bench.ts; figures in docs/simulator.md §Performance). res.end() later writes the last chunk
   * and the terminator through Node, so Node's own response state stays valid.
   */
  private writeEvent(ev: string): void {
    const res = this.res;
    const sock = res.socket;
    if (sock && (res as { chunkedEncoding?: boolean }).chunkedEncoding === true) {
      if (this.fmt.ascii) sock.write(ev.length.toString(16) + '\r\n' + ev + '\r\n', 'latin1');
      else sock.write(Buffer.byteLength(ev).toString(16) + '\r\n' + ev + '\r\n');
    } else {
      res.write(ev);
    }
  }

  onDone(atMs: number): void {
    if (this.finished) return;
    this.flush();
    this.finished = true;
    this.endMs = atMs;
    const n = this.emitted;
    this.metrics.onRequestEnd(this.opts.finishReason, this.req.arrivalMs, this.admitMs, this.firstTokenMs, atMs, n, this.req.promptTokens);
    const reasoning = Math.min(this.opts.reasoningTokens, n);
    const usage: Usage = { prompt_tokens: this.req.promptTokens, completion_tokens: n, total_tokens: this.req.promptTokens + n };
    if (reasoning > 0) usage.completion_tokens_details = { reasoning_tokens: reasoning };
    const timings =
      this.fmt.dialect === 'llamacpp'
        ? llamaTimings(this.req.promptTokens, this.firstTokenMs - this.req.arrivalMs, n, atMs - this.firstTokenMs)
        : null;
    const res = this.res;
    if (this.opts.stream) {
      const tail = this.fmt.tail(this.opts.finishReason, this.opts.sendUsage ? usage : null, timings);
      const sock = res.socket;
      if (this.opts.closeAfter && sock) {
        closingSockets.add(sock);
        res.end(tail, () => sock.end());
      } else res.end(tail);
    } else {
      let thought = '';
      let text = '';
      for (let k = 0; k < n; k++) {
        if (k < reasoning) thought += this.wordAt(k);
        else text += this.wordAt(k);
      }
      const body = this.fmt.full(text, this.opts.finishReason, usage, timings, thought);
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      this.markWritten();
      res.end(body);
    }
    this.listener.onStreamEnd(this, true);
  }

  onFail(message: string, httpStatus: number): void {
    if (this.finished) return;
    this.finished = true;
    this.backend.cancel(this.req.id);
    this.metrics.onRequestEnd('abort', this.req.arrivalMs, this.admitMs, this.firstTokenMs, this.lastTokenMs, this.emitted);
    const res = this.res;
    const type = httpStatus === 400 ? 'BadRequestError' : 'InternalServerError';
    const body = { error: { message, type, param: null, code: httpStatus } };
    if (res.headersSent) {
      // An error event inside the 200 stream, in the API's own form.
      res.end(this.fmt.errorTail(message, type, httpStatus));
    } else {
      res.writeHead(httpStatus, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    }
    this.listener.onStreamEnd(this, false);
  }

  private wordAt(k: number): string {
    return this.opts.words?.[k] ?? outputWord(this.opts.wordSeed, k);
  }

  /** Applies a mid-stream fault at token k; true when the token must not be written. */
  private faultAt(f: StreamFaultPlan, k: number): boolean {
    if (k !== f.disconnectAtToken && k !== f.errorAtToken && k !== f.stallAtToken && k !== f.malformedAtToken) return false;
    this.flush(k); // what came before the fault reaches the wire first; token k is not among it
    if (k === f.disconnectAtToken) {
      this.res.socket?.destroy();
      this.onClose();
      return true;
    }
    if (k === f.errorAtToken) {
      this.onFail(f.errorMessage, 500);
      return true;
    }
    if (k === f.stallAtToken) {
      // Stop generating, keep the connection silent for stallMs, then drop it.
      this.backend.cancel(this.req.id);
      const t = setTimeout(() => {
        this.res.socket?.destroy();
        this.onClose();
      }, f.stallMs);
      this.res.on('close', () => clearTimeout(t));
      return true;
    }
    if (k === f.malformedAtToken && this.opts.stream) {
      this.markWritten(); // the broken line goes out in the token's place
      this.res.write((k === 0 ? this.fmt.head() : '') + 'data: {"id":"broken","choices":[{"delta":{"content":\n\n');
      return true;
    }
    return false;
  }
}
