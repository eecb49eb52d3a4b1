/**
 * Spans joined to records by trace id (each request carries a fresh W3C trace id, records.md):
 * per request, the server's timings from its span; over the run, how many matched, why the rest
 * did not, percentiles of each component, and where the slowest 1% of requests (by client TTFT)
 * spent their time to first token.
 *
 * Population: the measure-phase ok requests that carry a trace id (a failed request has no TTFT
 * to explain). A record's trace may hold several spans (an engine's and a gateway's): the first
 * one with timings is its server span. Spans whose trace id is no request's are counted apart
 * (another client's traffic, or an earlier run's late export).
 *
 * Client times are read at records.jsonl's resolution (1 µs), so the live run and `analyze` of its
 * saved run (records.jsonl and spans.jsonl) give the same figures, to the last digit.
 */
import type { ForwardFigures } from './otlp-forward.js';
import { percentile } from '../../metrics/stats.js';
import { atRecordResolution as us } from '../../record/jsonl.js';
import type { RequestRecord } from '../../record/record.js';
import type { ReceivedSpan } from '../../util/otlp-spans.js';
import { serverTimingsOf, type ServerTimings } from './span-timings.js';

/** /2: `unmatched.no_trace_id`, `slowest_requests`, `over_time` (docs/result-schema.md). */
export const TRACES_SCHEMA = 'infermeter.traces/2';

/** How many of the slowest requests result.json lists one by one (the report's stacked timeline). */
export const SLOWEST_LISTED = 20;

export interface ComponentSummary {
  count: number;
  mean: number | null;
  p50: number | null;
  p90: number | null;
  p99: number | null;
}

export type Component = 'queue_ms' | 'prefill_ms' | 'decode_ms' | 'server_ttft_ms' | 'network_client_ms';
const COMPONENTS: readonly Component[] = ['queue_ms', 'prefill_ms', 'decode_ms', 'server_ttft_ms', 'network_client_ms'];

export interface TraceFigures {
  schema: typeof TRACES_SCHEMA;
  spans_received: number;
  /** Measure-phase ok requests with a trace id. */
  requests: number;
  matched: number;
  /** Why requests were not matched; `no_trace_id`: measure-phase ok requests sent without a trace id (not in `requests`). */
  unmatched: { no_span: number; no_timings: number; no_trace_id: number };
  /** Spans whose trace id is no request's of this run. */
  spans_unmatched: number;
  /** Payloads the receiver refused as malformed (one warning each kind). */
  payloads_refused: number;
  /** --otlp-forward: payloads forwarded, dropped and failed (otlp-forward.ts); absent without it. */
  forward?: ForwardFigures;
  components: Record<Component, ComponentSummary>;
  /**
   * The slowest 1% of matched requests by client TTFT (at least one): their mean TTFT and the
   * shares of it spent queued, in prefill, and outside the server (network and client).
   */
  slowest: { requests: number; ttft_ms_mean: number; queue_share: number | null; prefill_share: number | null; network_client_share: number | null } | null;
  /** The SLOWEST_LISTED slowest matched requests by client TTFT, slowest first, each split. */
  slowest_requests: SlowRequest[];
  /** Mean components per window of the run, by the time each request was sent; null without windows. */
  over_time: { window_s: number; points: OverTimePoint[] } | null;
}

export interface SlowRequest {
  id: number;
  /** When it was sent, ms since the run's t = 0. */
  sent_ms: number;
  client_ttft_ms: number;
  queue_ms: number | null;
  prefill_ms: number | null;
  server_ttft_ms: number | null;
  network_client_ms: number | null;
  decode_ms: number | null;
}

export interface OverTimePoint {
  /** Window start, s since t = 0. */
  t: number;
  /** Matched requests sent in the window. */
  requests: number;
  queue_ms: number | null;
  prefill_ms: number | null;
  decode_ms: number | null;
  network_client_ms: number | null;
}

/** The run's windows (report/data/windows.ts' shape): the caller picks them, so over_time shares the report's time base. */
export interface JoinWindows {
  width_s: number;
  count: number;
  of(tMs: number): number;
}

export interface JoinOptions {
  windows?: JoinWindows;
  /** Spans read but not kept (a file's other traces): counted as received and unmatched. */
  spansDropped?: number;
}

export interface JoinedRequest {
  id: number;
  trace_id: string;
  sent_ms: number;
  client_ttft_ms: number;
  timings: ServerTimings & { network_client_ms: number | null };
}

function summary(values: number[]): ComponentSummary {
  if (values.length === 0) return { count: 0, mean: null, p50: null, p90: null, p99: null };
  const s = Float64Array.from(values).sort();
  return { count: s.length, mean: values.reduce((a, b) => a + b, 0) / s.length, p50: percentile(s, 50), p90: percentile(s, 90), p99: percentile(s, 99) };
}

/** The requests whose span the join looks for: measure-phase ok final attempts with a trace id and a first token. */
export function tracedRequests(records: readonly RequestRecord[]): RequestRecord[] {
  return records.filter((r) => r.phase === 'measure' && r.status === 'ok' && !r.retried && !!r.trace_id && r.first_token_ms !== null);
}

export function joinTraces(records: readonly RequestRecord[], spans: readonly ReceivedSpan[], opts: JoinOptions = {}): { figures: TraceFigures; joined: JoinedRequest[] } {
  const byTrace = new Map<string, ReceivedSpan[]>();
  for (const s of spans) {
    const list = byTrace.get(s.trace_id);
    if (list) list.push(s);
    else byTrace.set(s.trace_id, [s]);
  }
  const population = tracedRequests(records);
  const known = new Set(records.map((r) => r.trace_id).filter((t): t is string => !!t));
  const joined: JoinedRequest[] = [];
  let noSpan = 0;
  let noTimings = 0;
  for (const r of population) {
    const list = byTrace.get(r.trace_id!);
    if (!list) {
      noSpan++;
      continue;
    }
    let timings: ServerTimings | null = null;
    for (const s of list) if ((timings = serverTimingsOf(s)) !== null) break;
    if (!timings) {
      noTimings++;
      continue;
    }
    const clientTtft = us(r.first_token_ms!) - us(r.sent_ms);
    joined.push({ id: r.id, trace_id: r.trace_id!, sent_ms: us(r.sent_ms), client_ttft_ms: clientTtft, timings: { ...timings, network_client_ms: timings.server_ttft_ms === null ? null : clientTtft - timings.server_ttft_ms } });
  }
  let spansUnmatched = opts.spansDropped ?? 0;
  for (const [trace, list] of byTrace) if (!known.has(trace)) spansUnmatched += list.length;
  let noTraceId = 0;
  for (const r of records) if (r.phase === 'measure' && r.status === 'ok' && !r.retried && !r.trace_id) noTraceId++;
  const components = {} as Record<Component, ComponentSummary>;
  for (const c of COMPONENTS) components[c] = summary(joined.map((j) => j.timings[c]).filter((v): v is number => v !== null));
  return {
    figures: {
      schema: TRACES_SCHEMA,
      spans_received: spans.length + (opts.spansDropped ?? 0),
      requests: population.length,
      matched: joined.length,
      unmatched: { no_span: noSpan, no_timings: noTimings, no_trace_id: noTraceId },
      spans_unmatched: spansUnmatched,
      payloads_refused: 0,
      components,
      slowest: slowest(joined),
      slowest_requests: bySlowest(joined).slice(0, SLOWEST_LISTED).map(slowRow),
      over_time: opts.windows ? overTime(joined, opts.windows) : null,
    },
    joined,
  };
}

/** Slowest first by client TTFT; ties in send order (a stable sort of the records' order). */
const bySlowest = (joined: readonly JoinedRequest[]): JoinedRequest[] => [...joined].sort((a, b) => b.client_ttft_ms - a.client_ttft_ms);

const slowRow = (j: JoinedRequest): SlowRequest => ({
  id: j.id,
  sent_ms: j.sent_ms,
  client_ttft_ms: j.client_ttft_ms,
  queue_ms: j.timings.queue_ms,
  prefill_ms: j.timings.prefill_ms,
  server_ttft_ms: j.timings.server_ttft_ms,
  network_client_ms: j.timings.network_client_ms,
  decode_ms: j.timings.decode_ms,
});

function overTime(joined: readonly JoinedRequest[], w: JoinWindows): TraceFigures['over_time'] {
  type Acc = { n: number; sums: Record<'queue_ms' | 'prefill_ms' | 'decode_ms' | 'network_client_ms', [number, number]> };
  const acc: Acc[] = Array.from({ length: w.count }, () => ({ n: 0, sums: { queue_ms: [0, 0], prefill_ms: [0, 0], decode_ms: [0, 0], network_client_ms: [0, 0] } }));
  for (const j of joined) {
    const a = acc[w.of(j.sent_ms)]!;
    a.n++;
    for (const k of ['queue_ms', 'prefill_ms', 'decode_ms', 'network_client_ms'] as const) {
      const v = j.timings[k];
      if (v === null) continue;
      a.sums[k][0] += v;
      a.sums[k][1]++;
    }
  }
  const mean = ([sum, n]: [number, number]) => (n === 0 ? null : sum / n);
  const points: OverTimePoint[] = [];
  acc.forEach((a, i) => {
    if (a.n === 0) return;
    // t from the window index times the width, as the report's other series (no float drift).
    points.push({ t: Math.round(i * w.width_s * 1e6) / 1e6, requests: a.n, queue_ms: mean(a.sums.queue_ms), prefill_ms: mean(a.sums.prefill_ms), decode_ms: mean(a.sums.decode_ms), network_client_ms: mean(a.sums.network_client_ms) });
  });
  return { window_s: w.width_s, points };
}

function slowest(joined: readonly JoinedRequest[]): TraceFigures['slowest'] {
  if (joined.length === 0) return null;
  const k = Math.max(1, Math.ceil(joined.length * 0.01));
  const top = bySlowest(joined).slice(0, k);
  const ttft = top.reduce((a, j) => a + j.client_ttft_ms, 0);
  const share = (c: Component): number | null => {
    if (ttft <= 0 || top.some((j) => j.timings[c] === null)) return null;
    return top.reduce((a, j) => a + j.timings[c]!, 0) / ttft;
  };
  return { requests: k, ttft_ms_mean: ttft / k, queue_share: share('queue_ms'), prefill_share: share('prefill_ms'), network_client_share: share('network_client_ms') };
}

/** One line for the summary: "traces: 200/200 matched; p99 queue 21.6 ms …; slowest 1%: 81% queued". */
export function tracesLine(f: TraceFigures): string {
  const ms = (v: number | null) => (v === null ? '—' : `${v.toFixed(1)} ms`);
  const pct = (v: number | null) => (v === null ? '—' : `${Math.round(v * 100)}%`);
  const why = f.matched < f.requests ? ` (${f.unmatched.no_span} without a span, ${f.unmatched.no_timings} with a span but no timings)` : '';
  const untraced = f.unmatched.no_trace_id ?? 0;
  const c = f.components;
  const parts = [`traces: ${f.matched}/${f.requests} requests matched to a server span${why}`];
  if (f.matched > 0) parts.push(`p99 queue ${ms(c.queue_ms.p99)}, prefill ${ms(c.prefill_ms.p99)}, decode ${ms(c.decode_ms.p99)}, network+client ${ms(c.network_client_ms.p99)}`);
  if (f.slowest) parts.push(`slowest ${f.slowest.requests} by TTFT (mean ${ms(f.slowest.ttft_ms_mean)}): ${pct(f.slowest.queue_share)} queued, ${pct(f.slowest.prefill_share)} prefill, ${pct(f.slowest.network_client_share)} network+client`);
  if (untraced > 0) parts.push(`${untraced} request${untraced === 1 ? '' : 's'} sent without a trace id`);
  if (f.spans_unmatched > 0) parts.push(`${f.spans_unmatched} span${f.spans_unmatched === 1 ? '' : 's'} of other requests ignored (pre-flight probes, other clients)`);
  if (f.payloads_refused > 0) parts.push(`${f.payloads_refused} malformed payloads refused`);
  return parts.join('; ');
}

