/**
 * Reads the normalized series from a Prometheus server instead of the target: production
 * services are scraped by one already. One query over the run's span fetches every raw metric the
 * detected engines map, as the samples Prometheus stored (a range query's steps for very long
 * spans); each `instance` becomes a source, and each scrape a snapshot, so the windows and
 * summaries are those of a live scrape (series.ts).
 */
import { getText } from '../util/http-get.js';
import { redactUrl } from '../util/redact.js';
import { detectEngines, type EngineMap, type Source } from './engines.js';
import type { Sample } from './exposition.js';
import type { SourceReport } from './scraper.js';
import { snapshotOf, type Snapshot } from './snapshot.js';

/** Raw metric names a source reads (histograms as their _bucket/_sum/_count series). */
function rawNames(src: Source): string[] {
  switch (src.kind) {
    case 'gauge':
    case 'counter':
    case 'gauge_ratio':
      return [src.metric];
    case 'ratio':
      return [src.num, src.den];
    case 'histogram':
      return [`${src.metric}_bucket`, `${src.metric}_sum`, `${src.metric}_count`];
    case 'histogram_sum':
      return [`${src.metric}_sum`];
  }
}

async function apiGet(base: string, path: string, params: Record<string, string>): Promise<unknown> {
  const u = new URL(path, base.endsWith('/') ? base : `${base}/`);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  const res = await getText(u, { timeoutMs: 30_000, maxBytes: 256 * 1024 * 1024, headers: { accept: 'application/json' } });
  let body: { status?: string; data?: unknown; error?: string };
  try {
    body = JSON.parse(res.body) as typeof body;
  } catch {
    throw new Error(`HTTP ${res.status}, not a Prometheus API answer`);
  }
  if (body.status !== 'success') throw new Error(`Prometheus: ${body.error ?? `HTTP ${res.status}`}`);
  return body.data;
}

/** Prometheus's default lookback: how far back an instant query finds a series' last sample. */
const LOOKBACK_MS = 5 * 60_000;
/** Raw samples are read when the span holds at most this many steps (a range query's limit is 11,000 points). */
const RAW_MAX_POINTS = 10_000;

interface MatrixSeries {
  metric: Record<string, string>;
  values: [number, string][];
}

/**
 * Waits (at most `maxWaitMs`) until the server has a sample of `metric` at or after `epochMs`,
 * so the last window covers the run's end; returns the newest sample time (epoch ms) or null.
 */
async function waitForSampleAfter(promUrl: string, metric: string, epochMs: number, maxWaitMs: number): Promise<number | null> {
  const deadline = Date.now() + maxWaitMs;
  for (;;) {
    const data = (await apiGet(promUrl, 'api/v1/query', { query: `max(timestamp(${metric}))` })) as { result: { value: [number, string] }[] };
    const newest = data.result[0] ? Number(data.result[0].value[1]) * 1000 : null;
    if (newest !== null && newest >= epochMs) return newest;
    if (Date.now() >= deadline) return newest;
    await new Promise((r) => setTimeout(r, 250));
  }
}

export interface PrometheusRead {
  snapshots: Snapshot[];
  sources: SourceReport[];
}

/**
 * Snapshots from `fromEpochMs` to `toEpochMs` every `stepMs`, timed on the run clock
 * (t = epoch − originEpochMs), after waiting up to `waitMs` for Prometheus to scrape past the
 * run's end. Never throws: a problem is one warning and an empty read.
 */
export async function readFromPrometheus(
  promUrl: string,
  span: { fromEpochMs: number; toEpochMs: number; originEpochMs: number; stepMs: number; waitMs: number },
  warn: (line: string) => void,
): Promise<PrometheusRead> {
  const shown = redactUrl(promUrl);
  try {
    const names = new Set((await apiGet(promUrl, 'api/v1/label/__name__/values', {})) as string[]);
    const engines: EngineMap[] = detectEngines(names);
    if (engines.length === 0) {
      warn(`warning: Prometheus at ${shown} holds no metric names of vLLM, SGLang, TGI, llama.cpp or DCGM; no server series`);
      return { snapshots: [], sources: [{ url: shown, engines: [], scrapes: 0, failed: 1, problem: 'unknown engine' }] };
    }
    const newest = await waitForSampleAfter(promUrl, (engines[0] as EngineMap).marker, span.toEpochMs, span.waitMs);
    const toEpochMs = Math.max(span.toEpochMs, newest ?? 0);
    const wanted = new Set<string>();
    for (const e of engines) for (const list of Object.values(e.sources)) for (const src of list ?? []) for (const n of rawNames(src)) if (names.has(n)) wanted.add(n);
    const selector = `{__name__=~"${[...wanted].map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')}"}`;
    const spanMs = toEpochMs - span.fromEpochMs;
    // The samples themselves, each at its scrape's time, when the span holds few enough: a range
    // query's value at a step is the last sample before it, so the step after the run's end could
    // hold a sample taken before the end, and the totals missed the run's last tokens. The range
    // reaches back Prometheus's lookback (5 min) for the last sample before the span (the baseline).
    const raw = spanMs / span.stepMs <= RAW_MAX_POINTS;
    const data = (
      raw
        ? await apiGet(promUrl, 'api/v1/query', { query: `${selector}[${Math.ceil((spanMs + LOOKBACK_MS) / 1000)}s]`, time: (toEpochMs / 1000).toFixed(3) })
        : await apiGet(promUrl, 'api/v1/query_range', {
            query: selector,
            start: (span.fromEpochMs / 1000).toFixed(3),
            end: (toEpochMs / 1000).toFixed(3),
            // At most 11,000 points per series (Prometheus's limit): widen the step for long runs.
            step: `${Math.max(span.stepMs, Math.ceil(spanMs / 10_000)) / 1000}s`,
          })
    ) as { resultType: string; result: MatrixSeries[] };
    // instance → timestamp → samples
    const byInstance = new Map<string, Map<number, Sample[]>>();
    for (const series of data.result) {
      const { __name__: name, instance = '', job: _job, ...labels } = series.metric;
      if (!name) continue;
      let times = byInstance.get(instance);
      if (!times) byInstance.set(instance, (times = new Map()));
      for (const [ts, v] of series.values) {
        let list = times.get(ts);
        if (!list) times.set(ts, (list = []));
        list.push({ name, family: name, labels, value: Number(v) });
      }
    }
    const snapshots: Snapshot[] = [];
    const sources: SourceReport[] = [];
    [...byInstance.keys()].sort().forEach((instance, idx) => {
      const times = byInstance.get(instance) as Map<number, Sample[]>;
      let scrapes = [...times].sort((a, b) => a[0] - b[0]);
      if (raw) {
        // From the last scrape at or before the span's start (the baseline) on.
        const before = scrapes.filter(([ts]) => ts * 1000 <= span.fromEpochMs).length;
        scrapes = scrapes.slice(Math.max(0, before - 1));
      }
      for (const [ts, samples] of scrapes) {
        snapshots.push(snapshotOf({ samples, types: new Map(), malformed: 0 }, ts * 1000 - span.originEpochMs, idx, engines));
      }
      sources.push({ url: `${shown} instance=${instance}`, engines: engines.map((e) => e.id), scrapes: scrapes.length, failed: 0, problem: null });
    });
    if (snapshots.length === 0) warn(`warning: Prometheus at ${shown} returned no samples for the run's span`);
    return { snapshots, sources };
  } catch (err) {
    warn(`warning: server metrics from Prometheus at ${shown}: ${(err as Error).message}; the run goes on without them`);
    return { snapshots: [], sources: [{ url: shown, engines: [], scrapes: 0, failed: 1, problem: (err as Error).message }] };
  }
}
