/**
 * Fault injection: per-request decisions drawn from a seeded RNG at arrival, so a run is
 * reproducible. Each rate is a probability in [0, 1] per request; at most one of the
 * request-level faults (429, 500, OOM) and one stream fault (disconnect, stall, malformed)
 * hits a request; slow headers combine with either.
 *
 *   http429Rate      429 + Retry-After: retryAfterS, OpenAI "rate_limit_exceeded" body
 *   http500Rate      500 with an InternalServerError body, before any header
 *   oomRate          CUDA out-of-memory: streaming → 200 then an error event after the first
 *                    token (then [DONE]); non-streaming → 500 with the OOM message
 *   disconnectRate   the TCP socket is destroyed after a random token (≥ 1 token sent)
 *   stallRate        after a random token the stream goes silent for stallMs, then is dropped
 *   malformedRate    one token's SSE line is replaced by truncated JSON
 *   slowHeadersRate  response headers (and generation) wait slowHeadersMs
 *   restart          at atMs after start: refuse connections for downMs, then come back
 *                    with counters reset (also SimServer.restart(downMs))
 */
import type { StreamFaultPlan } from './http/sim-stream.js';
import { mulberry32 } from './text.js';

export interface FaultOptions {
  seed?: number;
  http429Rate?: number;
  /** Seconds in the Retry-After header, default 1. */
  retryAfterS?: number;
  http500Rate?: number;
  oomRate?: number;
  disconnectRate?: number;
  stallRate?: number;
  /** Silence of a stalled stream before the socket is dropped (ms), default 30,000. */
  stallMs?: number;
  malformedRate?: number;
  slowHeadersRate?: number;
  /** Delay of slow headers (ms), default 2,000. */
  slowHeadersMs?: number;
  restart?: { atMs: number; downMs: number };
}

export type RequestFault = { kind: 'none' } | { kind: '429'; retryAfterS: number } | { kind: '500' } | { kind: 'oom' };

export interface FaultDecision {
  request: RequestFault;
  /** Null when no stream fault applies. */
  stream: StreamFaultPlan | null;
  /** Extra delay before headers (ms), 0 when none. */
  headerDelayMs: number;
}

export const OOM_MESSAGE =
  'CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.06 GiB is free.';

const NO_FAULT: FaultDecision = { request: { kind: 'none' }, stream: null, headerDelayMs: 0 };

export class FaultInjector {
  private readonly rand: () => number;

  constructor(private readonly o: FaultOptions) {
    this.rand = mulberry32(o.seed ?? 1);
  }

  /** Decides the faults of one request that will produce `outputTokens` tokens. */
  decide(outputTokens: number): FaultDecision {
    const o = this.o;
    const r = this.rand;
    const headerDelayMs = r() < (o.slowHeadersRate ?? 0) ? (o.slowHeadersMs ?? 2000) : 0;
    // One uniform draw against cumulative rates picks at most one request-level fault.
    const u = r();
    const c429 = o.http429Rate ?? 0;
    const c500 = c429 + (o.http500Rate ?? 0);
    const cOom = c500 + (o.oomRate ?? 0);
    let request: RequestFault = { kind: 'none' };
    if (u < c429) request = { kind: '429', retryAfterS: o.retryAfterS ?? 1 };
    else if (u < c500) request = { kind: '500' };
    else if (u < cOom) request = { kind: 'oom' };
    let stream: StreamFaultPlan | null = null;
    if (request.kind === 'none') {
      // A token index with at least one token delivered before it when possible.
      const at = outputTokens > 1 ? 1 + Math.floor(r() * (outputTokens - 1)) : 0;
      const v = r();
      const cDis = o.disconnectRate ?? 0;
      const cStall = cDis + (o.stallRate ?? 0);
      const cBad = cStall + (o.malformedRate ?? 0);
      const plan: StreamFaultPlan = { disconnectAtToken: -1, stallAtToken: -1, stallMs: o.stallMs ?? 30_000, malformedAtToken: -1, errorAtToken: -1, errorMessage: '' };
      if (v < cDis) stream = { ...plan, disconnectAtToken: at };
      else if (v < cStall) stream = { ...plan, stallAtToken: at };
      else if (v < cBad) stream = { ...plan, malformedAtToken: at };
    }
    if (headerDelayMs === 0 && request.kind === 'none' && stream === null) return NO_FAULT;
    return { request, stream, headerDelayMs };
  }
}
