/**
 * The streaming client: sends one request per WorkItem to an OpenAI-compatible server and
 * fills its RequestRecord. It never throws for anything the server does: HTTP errors,
 * disconnects, malformed streams and timeouts become a status and an error class.
 *
 * Hot path per network read: one clock read and one scanner push; nothing else.
 */
import http from 'node:http';
import https from 'node:https';
import type { RequestRecord, ErrorClass, RequestStatus } from '../record/record.js';
import type { WorkItem } from '../workload/types.js';
import { ConnectionPolicy } from './connection-policy.js';
import { buildRequestBody, endpointKind, errorMessageOf, parseCompleteResponse, type EndpointKind } from './openai-body.js';
import { OpenAIStreamScanner } from './stream-scanner.js';

export interface TargetConfig {
  baseUrl: string;
  path: string;
  model: string;
  /** The key itself, read from the environment by the caller; never stored in results. */
  apiKey: string | null;
  headers: Record<string, string>;
  extraBody: Record<string, unknown>;
  stream: boolean;
  ignoreEos: boolean;
  timeoutMs: number;
  keepText: boolean;
  /** Re-tokenizes output text when the server sends no usage. */
  countTokens?: ((text: string) => number) | undefined;
}

export interface PreparedRequest {
  item: WorkItem;
  /** The serialized JSON body. */
  body: Buffer;
}

/** Monotonic milliseconds since the run's start. */
export type Clock = () => number;

const MAX_ERROR_BODY = 8192;

class AbortReason extends Error {
  constructor(readonly status: RequestStatus, readonly errorClass: ErrorClass) {
    super(errorClass);
  }
}

/** Why we aborted a request, set before destroy() so every event handler sees it whatever their order. */
const abortReasons = new WeakMap<http.ClientRequest, AbortReason>();

function abort(req: http.ClientRequest, reason: AbortReason): void {
  if (!abortReasons.has(req)) abortReasons.set(req, reason);
  req.destroy(reason);
}

export class HttpTarget {
  readonly kind: EndpointKind;
  private readonly url: URL;
  private readonly mod: typeof http | typeof https;
  private readonly agent: http.Agent;
  private readonly policy = new ConnectionPolicy();
  private readonly baseHeaders: Record<string, string>;
  private readonly inflight = new Set<http.ClientRequest>();
  private cancelled = false;

  constructor(readonly config: TargetConfig, private readonly clock: Clock) {
    this.url = new URL(config.path.replace(/^\//, ''), config.baseUrl.endsWith('/') ? config.baseUrl : `${config.baseUrl}/`);
    this.kind = endpointKind(config.path);
    this.mod = this.url.protocol === 'https:' ? https : http;
    this.agent = new this.mod.Agent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' });
    this.baseHeaders = {
      'content-type': 'application/json',
      accept: config.stream ? 'text/event-stream' : 'application/json',
      'user-agent': 'infermeter',
      ...config.headers,
    };
    if (config.apiKey) this.baseHeaders.authorization = `Bearer ${config.apiKey}`;
  }

  /** Requests retried after meeting a server-closed socket (a diagnostic for result.json). */
  get staleSocketRetries(): number {
    return this.policy.staleRetries;
  }

  /**
   * Serializes the request body ahead of time, so the moment of sending costs only the
   * write (the open loop prepares the next request while it waits for its due time).
   */
  prepare(item: WorkItem): PreparedRequest {
    const body = Buffer.from(
      JSON.stringify(
        buildRequestBody(this.kind, item, {
          model: this.config.model,
          stream: this.config.stream,
          ignoreEos: this.config.ignoreEos,
          extraBody: this.config.extraBody,
        }),
      ),
    );
    return { item, body };
  }

  /** Sends a prepared request, filling `rec` (sent_ms, first_token_ms, chunk_ms, end_ms, tokens, status). */
  send(rec: RequestRecord, prepared: PreparedRequest): Promise<RequestRecord> {
    const { item, body } = prepared;
    rec.requested_output_tokens = item.max_tokens;
    rec.client_prompt_tokens = item.prompt_tokens;
    rec.task = item.task;
    rec.session = item.session;
    rec.turn = item.turn;
    return new Promise((resolve) => this.attempt(rec, body, 0, resolve));
  }

  private attempt(rec: RequestRecord, body: Buffer, attemptNo: number, resolve: (r: RequestRecord) => void): void {
    if (this.cancelled) {
      rec.sent_ms = rec.end_ms = this.clock();
      fail(rec, 'cancelled', 'cancelled', 'run ended before the request was sent');
      resolve(rec);
      return;
    }
    const pooled = this.policy.poolConnections;
    const headers: Record<string, string | number> = { ...this.baseHeaders, 'content-length': body.length };
    if (!pooled) headers.connection = 'close';
    const scanner = this.config.stream ? new OpenAIStreamScanner({ keepText: this.config.keepText || !!this.config.countTokens }) : null;
    let gotResponse = false;
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      this.inflight.delete(req);
      resolve(rec);
    };

    const req = this.mod.request(this.url, { method: 'POST', headers, agent: pooled ? this.agent : false });
    this.inflight.add(req);
    const timer = setTimeout(() => abort(req, new AbortReason('timeout', 'timeout')), this.config.timeoutMs);

    req.on('response', (res) => {
      gotResponse = true;
      rec.http_status = res.statusCode ?? null;
      const ok = res.statusCode === 200;
      const errChunks: Buffer[] = [];
      let errBytes = 0;
      res.on('data', (buf: Buffer) => {
        if (ok && scanner) scanner.push(buf, this.clock());
        else if (errBytes < MAX_ERROR_BODY || ok) {
          errChunks.push(buf);
          errBytes += buf.length;
        }
      });
      res.on('end', () => {
        const now = this.clock();
        rec.end_ms = now;
        this.policy.responseDone(req.socket);
        const text = Buffer.concat(errChunks).toString('utf8');
        if (!ok) failHttp(rec, res.statusCode ?? 0, text);
        else if (scanner) {
          scanner.end(now);
          this.finishStream(rec, scanner);
        } else this.finishComplete(rec, text, now);
        finish();
      });
      // Premature close surfaces as 'error' on res too; 'close' below records it.
      res.on('error', () => {});
      res.on('close', () => {
        if (settled || res.complete) return;
        // The body did not complete: the server dropped the connection, or we aborted it.
        const reason = abortReasons.get(req);
        rec.end_ms = this.clock();
        if (scanner) {
          scanner.end(rec.end_ms);
          this.finishStream(rec, scanner);
        }
        if (reason) fail(rec, reason.status, reason.errorClass, `${reason.errorClass} after ${Math.round(rec.end_ms - rec.sent_ms)} ms`);
        else fail(rec, 'error', 'disconnect', 'connection closed before the response completed');
        finish();
      });
    });

    req.on('error', (err: NodeJS.ErrnoException) => {
      if (settled) return;
      if (err instanceof AbortReason) {
        if (gotResponse) return; // the response's 'close' handler records it with what arrived
        rec.end_ms = this.clock();
        fail(rec, err.status, err.errorClass, `${err.errorClass} after ${Math.round(rec.end_ms - rec.sent_ms)} ms, before any response`);
        finish();
        return;
      }
      if (this.policy.shouldRetry(req.reusedSocket, gotResponse, err, attemptNo)) {
        settled = true;
        clearTimeout(timer);
        this.inflight.delete(req);
        this.policy.staleRetries++;
        this.attempt(rec, body, attemptNo + 1, resolve);
        return;
      }
      if (gotResponse) return; // reported by the response's 'close'
      rec.end_ms = this.clock();
      fail(rec, 'error', 'connect', `${err.code ?? 'error'}: ${err.message}`);
      finish();
    });

    // sent_ms: just before the request is written (after any concurrency gate upstream).
    rec.sent_ms = this.clock();
    req.end(body);
  }

  private finishStream(rec: RequestRecord, scan: OpenAIStreamScanner): void {
    const times = scan.contentTimes();
    rec.chunk_ms = times;
    rec.first_token_ms = times.length > 0 ? times[0]! : null;
    rec.finish_reason = scan.finishReason;
    if (this.config.keepText) rec.output_text = scan.text;
    this.countTokens(rec, scan.usage, scan.text, times.length);
    if (scan.errorMessage !== null) fail(rec, 'error', 'server_error_event', scan.errorMessage);
    else if (scan.malformed !== null) fail(rec, 'error', 'malformed_stream', `not JSON: ${scan.malformed}`);
    else if (!scan.sawDone && scan.finishReason === null) fail(rec, 'error', 'disconnect', 'stream ended without finish_reason or [DONE]');
    else if (times.length === 0) fail(rec, 'error', 'empty_response', 'no output content in the stream');
  }

  private finishComplete(rec: RequestRecord, bodyText: string, now: number): void {
    let parsed: ReturnType<typeof parseCompleteResponse>;
    try {
      parsed = parseCompleteResponse(JSON.parse(bodyText));
    } catch {
      parsed = null;
    }
    if (!parsed) {
      fail(rec, 'error', 'malformed_stream', `response is not a completion object: ${bodyText.slice(0, 120)}`);
      return;
    }
    // Without streaming the first token is only seen with the whole answer.
    rec.first_token_ms = parsed.text.length > 0 ? now : null;
    rec.chunk_ms = parsed.text.length > 0 ? Float64Array.of(now) : new Float64Array(0);
    rec.finish_reason = parsed.finishReason;
    if (this.config.keepText) rec.output_text = parsed.text;
    this.countTokens(rec, parsed.usage, parsed.text, rec.chunk_ms.length);
    if (parsed.text.length === 0 && !(parsed.usage?.completion_tokens)) fail(rec, 'error', 'empty_response', 'no output content in the response');
  }

  private countTokens(rec: RequestRecord, usage: { prompt_tokens: number | null; completion_tokens: number | null } | null, text: string | null, chunks: number): void {
    if (usage?.prompt_tokens != null) rec.prompt_tokens = usage.prompt_tokens;
    else rec.prompt_tokens = rec.client_prompt_tokens;
    if (usage?.completion_tokens != null) {
      rec.output_tokens = usage.completion_tokens;
      rec.token_source = 'usage';
    } else if (this.config.countTokens && text !== null) {
      rec.output_tokens = this.config.countTokens(text);
      rec.token_source = 'tokenizer';
    } else {
      rec.output_tokens = chunks;
      rec.token_source = 'chunks';
    }
  }

  /** Aborts every request in flight (status `cancelled`) and refuses new ones. */
  cancelAll(): void {
    this.cancelled = true;
    for (const req of this.inflight) abort(req, new AbortReason('cancelled', 'cancelled'));
  }

  close(): void {
    this.agent.destroy();
  }
}

function fail(rec: RequestRecord, status: RequestStatus, errorClass: ErrorClass, message: string): void {
  rec.status = status;
  rec.error_class = errorClass;
  rec.error_message = message;
}

function failHttp(rec: RequestRecord, code: number, bodyText: string): void {
  const cls: ErrorClass = code === 429 ? 'http_429' : code >= 500 ? 'http_5xx' : 'http_4xx';
  fail(rec, 'error', cls, `HTTP ${code}: ${errorMessageOf(bodyText) || 'no body'}`);
}
