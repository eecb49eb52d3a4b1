/**
 * The streaming client: sends one request per WorkItem to an OpenAI-compatible server and
 * fills its RequestRecord. It never throws for anything the server does: HTTP errors,
 * disconnects, malformed streams and timeouts become a status and an error class.
 *
 * HTTP/1.1 is spoken directly over pooled sockets (http1/): per network read the hot path is one
 * clock read, the response parser's framing step, and one scanner push — no node:http
 * IncomingMessage stream in between (why: docs/performance.md, section 3).
 */
import type { Clock, RequestRecord, ErrorClass, RequestStatus } from '../record/record.js';
import type { WorkItem } from '../workload/types.js';
import type { StreamScan, UsageCounts } from './stream-events.js';
import { ConnectionPolicy } from './connection-policy.js';
import { ConnectionPool } from './http1/connection-pool.js';
import { HttpParseError, ResponseParser } from './http1/response-parser.js';
import { errorMessageOf } from './openai-body.js';
import type { EndpointKind, UnaryAnswer } from './endpoints/endpoint-kind.js';
import { resolveEndpointKind } from './endpoints/registry.js';
import { endpointUrl } from './endpoint-url.js';
import { compressedStreamMessage, decodeBody, isEncoded } from './content-encoding.js';
import { checkUsage } from './usage-check.js';
import { StallWatch } from './stall-watch.js';
import { mediaRecordFields } from '../util/media.js';
import { estimateCount } from '../util/token-estimate.js';

/** The request carried images or audio: the server's prompt counts their tokens, the client's does not. */
const hasMedia = (rec: RequestRecord): boolean => rec.images !== undefined || rec.audio_clips !== undefined;
import { basicCredentials, Redactor } from '../util/redact.js';
import { proxyConnectError, proxyRoute, type ProxyRoute, type ProxySettings } from '../util/proxy.js';
import { responseIdIn, TraceIdSource, traceHeaderLines } from './trace-context.js';
import { connectFailure } from './connect-failure.js';

export interface TargetConfig {
  baseUrl: string;
  path: string;
  /** `--endpoint-type`: the API the path speaks (endpoints/registry.ts); absent or null: the one the path names. */
  endpointType?: string | null;
  model: string;
  /** The key itself, read from the environment by the caller; never stored in results. */
  apiKey: string | null;
  headers: Record<string, string>;
  extraBody: Record<string, unknown>;
  /** Stream the answer (kinds without a stream format, embeddings, are always sent unary). */
  stream: boolean;
  ignoreEos: boolean;
  timeoutMs: number;
  /**
   * A response that has begun but sends no byte for this long ends as `stalled` (--stall-timeout);
   * 0 or absent: no stall detection (the per-request timeout still applies).
   */
  stallTimeoutMs?: number;
  keepText: boolean;
  /** Re-tokenizes output text when the server sends no usage. */
  countTokens?: ((text: string) => number) | undefined;
  /** Skip TLS certificate verification (--insecure). */
  insecureTls?: boolean;
  /** Told once, in one line, the first time a request cannot be built (a plugin's buildBody threw). */
  warn?: (line: string) => void;
  /** HTTP(S)_PROXY / NO_PROXY as resolved for the run (util/proxy.ts); absent or null: direct (the simulator). */
  proxy?: ProxySettings | null;
}

export interface PreparedRequest {
  item: WorkItem;
  /** The serialized JSON body (or a kind's own bytes, buildRawBody). */
  body: Buffer;
  /** The body's Content-Type when it is not JSON (multipart/form-data with its boundary); absent: application/json. */
  contentType?: string;
  /** Why no body could be built (a plugin's buildBody threw): the request fails as `plugin_error`, unsent. */
  buildError?: string;
}

const MAX_ERROR_BODY = 8192;

/** One request attempt on one connection; `abort` ends it with the given outcome. */
interface InFlight {
  abort(status: RequestStatus, errorClass: ErrorClass): void;
  /** Clock time of the last byte read, or null while no response has begun (stall detection). */
  lastByteMs(): number | null;
}

export class HttpTarget {
  readonly kind: EndpointKind;
  /** Requests ask for a streamed answer: --stream and a kind that has a stream format. */
  private readonly streaming: boolean;
  private readonly url: URL;
  private readonly pool: ConnectionPool;
  /** The proxy this target's requests go through, or null. */
  readonly proxy: ProxyRoute | null;
  private readonly policy = new ConnectionPolicy();
  /** Request line and headers up to (not including) content-length. */
  private readonly headPrefix: string;
  private readonly inflight = new Set<InFlight>();
  private readonly stalls: StallWatch<InFlight> | null;
  /** Scrubs the run's secrets from error messages (servers echo a refused key in 401 bodies). */
  private readonly redactor: Redactor;
  private cancelled = false;
  private warnedBuild = false;
  private warnedFdLimit = false;
  private readonly traceIds = new TraceIdSource();
  /** Requests prepared so far: a raw body's sequence number (its multipart boundary). */
  private prepared = 0;

  constructor(readonly config: TargetConfig, private clock: Clock) {
    this.url = endpointUrl(config.baseUrl, config.path);
    this.redactor = Redactor.forTarget({ baseUrl: config.baseUrl, apiKey: config.apiKey, headers: config.headers, proxy: config.proxy ?? null });
    if (this.url.protocol !== 'http:' && this.url.protocol !== 'https:') throw new Error(`unsupported protocol ${this.url.protocol}`);
    this.proxy = proxyRoute(this.url, config.proxy);
    this.kind = resolveEndpointKind(config.endpointType, config.path);
    this.streaming = config.stream && this.kind.newScanner !== undefined;
    this.pool = new ConnectionPool(this.url, config.insecureTls ?? false, this.proxy);
    const headers: Record<string, string> = {
      host: this.url.host,
      // A kind with its own body (multipart) sends its content type with each request (send()).
      ...(this.kind.buildRawBody ? {} : { 'content-type': 'application/json' }),
      accept: this.streaming ? 'text/event-stream' : 'application/json',
      'user-agent': 'infermeter',
      // Per-token times need each event as it is sent: a compressed stream is refused, not decoded
      // (why: docs/records.md §Content encoding).
      'accept-encoding': 'identity',
    };
    // Credentials in the URL (http://user:pass@host) are sent as HTTP Basic, as curl does.
    if (this.url.username || this.url.password) headers.authorization = `Basic ${basicCredentials(this.url)}`;
    for (const [k, v] of Object.entries(this.kind.headers ?? {})) headers[k] = v;
    for (const [k, v] of Object.entries(config.headers)) headers[k.toLowerCase()] = v;
    if (config.apiKey) Object.assign(headers, this.kind.authHeaders(config.apiKey));
    delete headers['content-length'];
    delete headers['transfer-encoding'];
    // An http:// target through a proxy: the absolute form, and the proxy's credentials (https://
    // targets go through a CONNECT tunnel and are sent as to the server itself).
    const absolute = this.proxy !== null && this.url.protocol === 'http:';
    if (absolute && this.proxy!.authorization) headers['proxy-authorization'] = this.proxy!.authorization;
    let head = `POST ${absolute ? this.url.origin : ''}${this.url.pathname}${this.url.search} HTTP/1.1\r\n`;
    for (const [k, v] of Object.entries(headers)) {
      if (/[\r\n]/.test(k + v)) throw new Error(`header ${k} contains a line break`);
      head += `${k}: ${v}\r\n`;
    }
    this.headPrefix = head;
    const stallMs = config.stallTimeoutMs ?? 0;
    this.stalls =
      stallMs > 0
        ? new StallWatch<InFlight>(stallMs, () => this.clock(), this.inflight, (f) => f.lastByteMs(), (f) => f.abort('error', 'stalled'))
        : null;
  }

  /** Puts the client on the run's clock: it is built, and connects, before t = 0 is known. */
  useClock(clock: Clock): void {
    this.clock = clock;
  }

  /** Opens `n` keep-alive connections before the load starts (see ConnectionPool.preconnect). */
  preconnect(n: number): Promise<number> {
    return this.pool.preconnect(n);
  }

  /** Requests retried after meeting a server-closed socket (a diagnostic for result.json). */
  get staleSocketRetries(): number {
    return this.policy.staleRetries;
  }

  /** Whether connections are still pooled (false once the server was seen closing each one). */
  get poolsConnections(): boolean {
    return this.policy.pooling(this.pool);
  }

  /**
   * Serializes the request body ahead of time, so the moment of sending costs only the
   * write (the open loop prepares the next request while it waits for its due time).
   */
  prepare(item: WorkItem): PreparedRequest {
    let body: Buffer;
    try {
      if (this.kind.buildRawBody) {
        const raw = this.kind.buildRawBody(item, { model: this.config.model, stream: this.streaming, ignoreEos: this.config.ignoreEos, extraBody: this.config.extraBody }, this.prepared++);
        return { item, body: raw.bytes, contentType: raw.contentType };
      }
      body = Buffer.from(
        JSON.stringify(
          this.kind.buildBody(item, {
            model: this.config.model,
            stream: this.streaming,
            ignoreEos: this.config.ignoreEos,
            extraBody: this.config.extraBody,
          }),
        ),
      );
    } catch (err) {
      // Only a plugin's builder can throw (or build what JSON cannot hold): that request fails, the run goes on.
      const buildError = `the ${this.kind.buildRawBody ? 'buildRawBody' : "plugin's buildBody"} threw: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`;
      if (!this.warnedBuild) {
        this.warnedBuild = true;
        this.config.warn?.(`--endpoint-type ${this.kind.name}: ${buildError}; such requests are recorded as failed (plugin_error), the run goes on`);
      }
      return { item, body: Buffer.alloc(0), buildError };
    }
    return { item, body };
  }

  /** Sends a prepared request, filling `rec` (sent_ms, first_token_ms, chunk_ms, end_ms, tokens, status). */
  send(rec: RequestRecord, prepared: PreparedRequest): Promise<RequestRecord> {
    const { item, body } = prepared;
    rec.requested_output_tokens = item.max_tokens;
    // A transcription sends no text: its prompt is the audio, which only the server counts.
    rec.client_prompt_tokens = this.kind.input === 'audio' ? null : item.prompt_tokens;
    if (this.kind.input === 'messages' && item.messages && item.messages.length > 1) rec.prompt_messages = item.messages.length;
    if (!this.kind.generates) rec.inputs = item.inputs?.length ?? 1;
    if (item.media) Object.assign(rec, mediaRecordFields(item.media));
    rec.task = item.task;
    rec.session = item.session;
    rec.turn = item.turn;
    const ids = this.traceIds.next();
    rec.trace_id = ids.traceId;
    const traceLines = prepared.contentType === undefined ? traceHeaderLines(ids) : `content-type: ${prepared.contentType}\r\n${traceHeaderLines(ids)}`;
    // A checked request's answer is evaluated (docs/quality.md), so its text is kept whatever --keep-text says.
    const keep = this.config.keepText || item.check !== undefined;
    if (prepared.buildError !== undefined) {
      rec.sent_ms = rec.end_ms = this.clock();
      fail(rec, 'error', 'plugin_error', prepared.buildError);
      return Promise.resolve(rec);
    }
    return new Promise((resolve) =>
      this.attempt(rec, body, traceLines, 0, keep, (r) => {
        // Only failures carry a message; a server's error body may echo the key it refused.
        if (r.error_message !== null) r.error_message = this.redactor.scrub(r.error_message);
        // A server may echo the request's credentials as content: scrubbed here, once per record,
        // after the one decode of the kept text (the per-chunk path never sees a string).
        if (!this.redactor.empty) {
          if (r.output_text !== null) r.output_text = this.redactor.scrubKnown(r.output_text);
          if (r.finish_reason !== null) r.finish_reason = this.redactor.scrubKnown(r.finish_reason);
        }
        resolve(r);
      }),
    );
  }

  private attempt(rec: RequestRecord, body: Buffer, traceLines: string, attemptNo: number, keep: boolean, resolve: (r: RequestRecord) => void): void {
    if (this.cancelled) {
      rec.sent_ms = rec.end_ms = this.clock();
      fail(rec, 'cancelled', 'cancelled', 'run ended before the request was sent');
      resolve(rec);
      return;
    }
    const pooled = this.policy.pooling(this.pool);
    const { conn, reused } = this.pool.acquire(pooled);
    const scanner = this.streaming ? this.kind.newScanner!({ keepText: keep || !!this.config.countTokens }) : null;
    let ok = false;
    /** A 200 answer to a streaming request whose content type is not an event stream (an HTML login page…). */
    let notStream: string | null = null;
    /** A non-streaming answer's Content-Encoding, decoded once the body is whole. */
    let encoding: string | undefined;
    let gotBytes = false;
    let settled = false;
    let readAt = 0;
    let needId = true;
    let idReads = 0;
    const other: Buffer[] = [];
    let otherBytes = 0;
    let aborted: { status: RequestStatus; errorClass: ErrorClass } | null = null;

    const settle = (): void => {
      settled = true;
      clearTimeout(timer);
      this.inflight.delete(handle);
    };
    const finish = (): void => {
      settle();
      resolve(rec);
    };
    const parser = new ResponseParser({
      onHead: (h) => {
        rec.http_status = h.status;
        ok = h.status === 200;
        if (h.status === 429 || h.status === 503) {
          const wait = retryAfterMs(h.headers.get('retry-after'));
          if (wait !== null) rec.retry_after_ms = wait;
        }
        if (ok && scanner) {
          // Checked once per response, on the headers: the SSE hot path stays as it is. A missing
          // content type is given the benefit of the doubt.
          const type = h.headers.get('content-type');
          const enc = h.headers.get('content-encoding');
          if (type !== undefined && !/^\s*text\/event-stream/i.test(type)) {
            ok = false;
            notStream = `content-type ${type} instead of text/event-stream`;
          } else if (isEncoded(enc)) {
            ok = false;
            notStream = compressedStreamMessage(enc!);
          }
        } else encoding = h.headers.get('content-encoding');
      },
      onBody: (b) => {
        if (ok && scanner) {
          // The server's id, once: the first event carries it (the SSE hot path is not touched).
          if (needId) {
            const id = responseIdIn(b);
            if (id !== null) rec.response_id = id;
            needId = id === null && ++idReads < 2;
          }
          scanner.push(b, readAt);
        }
        else if (otherBytes < MAX_ERROR_BODY || (ok && !scanner)) {
          other.push(Buffer.from(b));
          otherBytes += b.length;
        }
      },
      onComplete: () => {
        if (settled) return;
        rec.end_ms = readAt;
        if (parser.reusable && pooled) this.pool.release(conn);
        else {
          conn.owner = null;
          conn.destroy();
        }
        const decoded = decodeBody(Buffer.concat(other), encoding);
        const bodyText = decoded.text;
        if (notStream !== null) fail(rec, 'error', 'not_event_stream', `HTTP 200 with ${notStream}${notStream.startsWith('content-type') ? `: ${bodyPreview(bodyText)}` : ''}`);
        else if (decoded.error !== null && ok) fail(rec, 'error', 'malformed_stream', decoded.error);
        else this.completed(rec, ok, scanner, bodyText, readAt, keep);
        finish();
      },
    });
    const handle: InFlight = {
      abort: (status, errorClass) => {
        if (settled || aborted) return;
        aborted = { status, errorClass };
        conn.destroy(); // onClose records it, with what arrived
      },
      lastByteMs: () => (gotBytes ? readAt : null),
    };
    conn.owner = {
      onData: (b) => {
        if (settled) return;
        readAt = this.clock();
        gotBytes = true;
        try {
          parser.push(b);
        } catch (err) {
          if (!(err instanceof HttpParseError)) throw err;
          rec.end_ms = readAt;
          fail(rec, 'error', 'malformed_stream', `invalid HTTP response: ${err.message}`);
          conn.owner = null;
          conn.destroy();
          finish();
        }
      },
      onClose: (err) => {
        if (settled) return;
        const now = this.clock();
        if (!aborted && !gotBytes && reused && attemptNo === 0) {
          // The server had closed this pooled connection: it never saw the request. Retry once, fresh.
          settle();
          this.policy.staleRetries++;
          this.attempt(rec, body, traceLines, attemptNo + 1, keep, resolve);
          return;
        }
        if (!aborted && parser.started && parser.end()) return; // close-delimited body: onComplete ran
        rec.end_ms = now;
        if (scanner && parser.started && ok) {
          scanner.end(now);
          this.finishStream(rec, scanner, keep);
        }
        if (aborted?.errorClass === 'stalled') {
          const chunks = rec.chunk_ms.length;
          fail(rec, 'error', 'stalled', `stalled: no byte for ${Math.round(now - readAt)} ms (--stall-timeout ${this.config.stallTimeoutMs} ms) after ${chunks} content chunk${chunks === 1 ? '' : 's'}`);
        } else if (aborted) {
          const what = parser.started ? '' : ', before any response';
          fail(rec, aborted.status, aborted.errorClass, `${aborted.errorClass} after ${Math.round(now - rec.sent_ms)} ms${what}`);
        } else if (!parser.started && !gotBytes) {
          // Through a proxy, a failure to reach it names the proxy, not the server.
          const e = err && this.proxy ? (proxyConnectError(err, this.proxy) as NodeJS.ErrnoException) : err;
          const f = connectFailure(e);
          if (f.errorClass === 'client_limit' && !this.warnedFdLimit) {
            this.warnedFdLimit = true;
            this.config.warn?.(`client: ${f.message}; such requests are recorded as failed (client_limit: the client's, not the server's), the run goes on`);
          }
          fail(rec, 'error', f.errorClass, f.message);
        } else if (!parser.started) {
          fail(rec, 'error', 'disconnect', `${err?.code ?? 'closed'}: ${err?.message ?? 'connection closed before any response'}`);
        } else fail(rec, 'error', 'disconnect', 'connection closed before the response completed');
        finish();
      },
    };
    this.inflight.add(handle);
    this.stalls?.watch();
    const timer = setTimeout(() => handle.abort('timeout', 'timeout'), this.config.timeoutMs);
    const head = `${this.headPrefix}${traceLines}${pooled ? '' : 'connection: close\r\n'}content-length: ${body.length}\r\n\r\n`;
    // sent_ms: just before the request is written (after any concurrency gate upstream).
    rec.sent_ms = this.clock();
    conn.socket.write(Buffer.concat([Buffer.from(head, 'latin1'), body]));
  }

  /** A complete response: a stream, a non-streaming body, or an HTTP error. */
  private completed(rec: RequestRecord, ok: boolean, scanner: StreamScan | null, bodyText: string, now: number, keep: boolean): void {
    if (!ok) failHttp(rec, rec.http_status ?? 0, bodyText);
    else if (scanner) {
      scanner.end(now);
      this.finishStream(rec, scanner, keep);
    } else this.finishComplete(rec, bodyText, now, keep);
  }

  private finishStream(rec: RequestRecord, scan: StreamScan, keep: boolean): void {
    const times = scan.contentTimes();
    rec.chunk_ms = times;
    rec.first_token_ms = times.length > 0 ? times[0]! : null;
    rec.finish_reason = scan.finishReason;
    if (keep) rec.output_text = scan.text;
    if (scan.eventsAfterDone > 0) rec.events_after_done = scan.eventsAfterDone;
    const usage = this.countTokens(rec, scan.usage, scan.text, times.length);
    const reasoningTokens = usage?.reasoning_tokens ?? scan.reasoningEvents;
    if (scan.reasoningEvents > 0 || reasoningTokens > 0) {
      rec.first_reasoning_ms = scan.firstReasoningMs;
      rec.first_answer_ms = scan.firstAnswerMs;
      rec.reasoning_tokens = reasoningTokens;
    }
    if (scan.errorMessage !== null) fail(rec, 'error', 'server_error_event', scan.errorMessage);
    else if (scan.malformed !== null) fail(rec, 'error', 'malformed_stream', `not JSON: ${scan.malformed}`);
    else if (!scan.sawDone && scan.finishReason === null) fail(rec, 'error', 'disconnect', `stream ended without ${this.kind.streamEnd ?? 'finish_reason or [DONE]'}`);
    else if (times.length === 0) fail(rec, 'error', 'empty_response', 'no output content in the stream');
  }

  private finishComplete(rec: RequestRecord, bodyText: string, now: number, keep: boolean): void {
    let parsed: UnaryAnswer | null;
    try {
      const json: unknown = JSON.parse(bodyText);
      const id = (json as { id?: unknown } | null)?.id;
      if (typeof id === 'string') rec.response_id = id;
      parsed = this.kind.parseUnary(json);
    } catch {
      parsed = null;
    }
    if (!parsed) {
      fail(rec, 'error', 'malformed_stream', `response is not ${this.kind.name === 'embeddings' ? 'an embeddings list' : `a ${this.kind.name} answer`}: ${bodyPreview(bodyText)}`);
      return;
    }
    if (!this.kind.generates) {
      this.finishPooled(rec, parsed);
      return;
    }
    // Without streaming the first token is only seen with the whole answer.
    rec.first_token_ms = parsed.text.length > 0 ? now : null;
    rec.chunk_ms = parsed.text.length > 0 ? Float64Array.of(now) : new Float64Array(0);
    rec.finish_reason = parsed.finishReason;
    if (keep) rec.output_text = parsed.text;
    const usage = this.countTokens(rec, parsed.usage, parsed.text, rec.chunk_ms.length, true);
    const reasoningTokens = usage?.reasoning_tokens ?? 0;
    if (reasoningTokens > 0) {
      // Reasoning and answer arrive together: nothing to time apart, only the count to keep.
      rec.first_reasoning_ms = null;
      rec.first_answer_ms = rec.first_token_ms;
      rec.reasoning_tokens = reasoningTokens;
    }
    if (parsed.text.length === 0 && !usage?.completion_tokens) fail(rec, 'error', 'empty_response', 'no output content in the response');
  }

  /**
   * An answer with nothing generated (embeddings): no first token and no chunks, a latency only;
   * the inputs it covers must be the inputs sent.
   */
  private finishPooled(rec: RequestRecord, parsed: UnaryAnswer): void {
    const rejected = checkUsage(parsed.usage, rec.client_prompt_tokens, rec.turn, hasMedia(rec));
    if (rejected !== null) rec.usage_rejected = rejected;
    const served = rejected === null ? (parsed.usage?.prompt_tokens ?? null) : null;
    rec.prompt_tokens = served ?? rec.client_prompt_tokens;
    rec.token_source = 'none';
    const sent = rec.inputs ?? 1;
    if (parsed.inputs !== sent) fail(rec, 'error', 'empty_response', `${parsed.inputs ?? 0} ${this.kind.name === 'embeddings' ? 'embeddings' : 'scores'} for ${sent} input${sent === 1 ? '' : 's'}`);
  }

  /** Fills the token counts; returns the usage that was believed (null: none, or rejected). */
  /** `whole`: a non-streamed answer. */
  private countTokens(rec: RequestRecord, given: UsageCounts | null, text: string | null, chunks: number, whole = false): UsageCounts | null {
    const rejected = checkUsage(given, rec.client_prompt_tokens, rec.turn, hasMedia(rec));
    // Impossible usage is not believed: the record says why, and the counts fall back as if none came.
    if (rejected !== null) rec.usage_rejected = rejected;
    const usage = rejected === null ? given : null;
    if (usage?.prompt_tokens != null) rec.prompt_tokens = usage.prompt_tokens;
    else rec.prompt_tokens = rec.client_prompt_tokens;
    if (usage?.completion_tokens != null) {
      rec.output_tokens = usage.completion_tokens;
      rec.token_source = 'usage';
    } else if (this.config.countTokens && text !== null) {
      rec.output_tokens = this.config.countTokens(text);
      rec.token_source = 'tokenizer';
    } else if (whole && this.kind.input === 'audio' && text !== null) {
      // A whole transcription (vLLM's usage is the audio's seconds, no tokens) without --tokenizer:
      // the shared estimate the client counts prompts with (docs/endpoints.md §Transcriptions).
      rec.output_tokens = estimateCount(text);
      rec.token_source = 'tokenizer';
    } else {
      rec.output_tokens = chunks;
      rec.token_source = 'chunks';
    }
    return usage;
  }

  /** Aborts every request in flight (status `cancelled`) and refuses new ones. */
  cancelAll(): void {
    this.cancelled = true;
    for (const f of [...this.inflight]) f.abort('cancelled', 'cancelled');
  }

  close(): void {
    this.stalls?.stop();
    this.pool.close();
  }
}

/** Retry-After as delay-seconds or an HTTP date (RFC 9110 §10.2.3), in ms; null when absent or unreadable. */
export function retryAfterMs(value: string | undefined, nowMs = Date.now()): number | null {
  if (value === undefined) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

function fail(rec: RequestRecord, status: RequestStatus, errorClass: ErrorClass, message: string): void {
  rec.status = status;
  rec.error_class = errorClass;
  rec.error_message = message;
}

/** The first characters of a body, whitespace collapsed, for an error message. */
export function bodyPreview(text: string, max = 120): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t === '') return '(empty body)';
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

function failHttp(rec: RequestRecord, code: number, bodyText: string): void {
  const cls: ErrorClass = code === 429 ? 'http_429' : code >= 500 ? 'http_5xx' : 'http_4xx';
  fail(rec, 'error', cls, `HTTP ${code}: ${errorMessageOf(bodyText) || 'no body'}`);
}
