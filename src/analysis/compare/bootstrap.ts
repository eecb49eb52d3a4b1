/**
 * Bootstrap resampling of a run's key figures.
 *
 * Resampling unit: the request, in moving blocks (blockCounts). A resample draws requests with
 * replacement, block by block; each request then counts k_i times. Percentiles are
 * taken of the values of the drawn requests (ITL: of every gap of every drawn request), with
 * numpy's linear interpolation, by one weighted scan of the values sorted once — no re-sorting.
 *
 * Throughputs (requests/s, tokens/s, goodput, cost per 1M tokens) are window totals divided by
 * the window: resampling requests inside a fixed window would hold them at the observed value
 * (every request is counted once on average, and the window does not move), so for them the unit
 * is the 1-second bucket of the measured window (each request's tokens and completion counted in
 * the bucket of its end): a resample draws the run's buckets with replacement.
 */
import type { RequestRecord } from '../../record/record.js';
import type { Rng } from '../../util/rng.js';
import { isGood, SLO_METRICS, type PooledMetricDef, type RequestMetricDef, type Slo } from '../../metrics/index.js';

const ttft = SLO_METRICS.ttft_ms as RequestMetricDef;
const tpot = SLO_METRICS.tpot_ms as RequestMetricDef;
const e2el = SLO_METRICS.e2el_ms as RequestMetricDef;
const itl = SLO_METRICS.itl_ms as PooledMetricDef;
import { LATENCY_KEYS, PERCENTILES, type FigureValues, type LatencyKey } from './key-figures.js';

interface SortedValues {
  values: Float64Array;
  /** Index of the request each value belongs to. */
  owner: Int32Array;
}

export interface RunSample {
  n: number;
  latency: Record<LatencyKey, SortedValues>;
  /** 1 where the request's status is 'error'. */
  error: Uint8Array;
  duration_s: number;
  /** Per 1-second bucket: ok completions, good completions, output tokens, input + output tokens. */
  buckets: { ok: Float64Array; good: Float64Array; output: Float64Array; total: Float64Array };
  /** Cost per second of the window (price × GPUs / 3600), when the run was costed. */
  cost_per_s: number | null;
}

function sortedWithOwners(values: number[], owners: number[]): SortedValues {
  const idx = Int32Array.from(values.keys()).sort((a, b) => values[a]! - values[b]!);
  return { values: Float64Array.from(idx, (i) => values[i]!), owner: Int32Array.from(idx, (i) => owners[i]!) };
}

/** Everything a resample needs from the measure-phase records of one run. */
export function buildSample(
  measure: readonly RequestRecord[],
  window: { start_ms: number; end_ms: number } | null,
  slos: readonly Slo[] | null,
  costPerS: number | null,
): RunSample {
  const n = measure.length;
  const vals: Record<LatencyKey, number[]> = { ttft: [], tpot: [], itl: [], e2el: [] };
  const owners: Record<LatencyKey, number[]> = { ttft: [], tpot: [], itl: [], e2el: [] };
  const error = new Uint8Array(n);
  const start = window?.start_ms ?? 0;
  const durMs = window ? window.end_ms - window.start_ms : 0;
  const nb = Math.max(1, Math.ceil(durMs / 1000));
  const buckets = { ok: new Float64Array(nb), good: new Float64Array(nb), output: new Float64Array(nb), total: new Float64Array(nb) };
  const gaps = new Float64Array(1024);
  for (let i = 0; i < n; i++) {
    const r = measure[i]!;
    if (r.status === 'error') error[i] = 1;
    if (r.status !== 'ok') continue;
    for (const [key, def] of [['ttft', ttft], ['tpot', tpot], ['e2el', e2el]] as const) {
      const v = def.value(r);
      if (v !== null) {
        vals[key].push(v);
        owners[key].push(i);
      }
    }
    const g = itl.count(r);
    const buf = g <= gaps.length ? gaps : new Float64Array(g);
    itl.fill(r, buf, 0);
    for (let j = 0; j < g; j++) {
      vals.itl.push(buf[j]!);
      owners.itl.push(i);
    }
    const b = Math.min(nb - 1, Math.max(0, Math.floor((r.end_ms - start) / 1000)));
    buckets.ok[b]! += 1;
    if (slos && slos.length > 0 && isGood(r, slos)) buckets.good[b]! += 1;
    buckets.output[b]! += r.output_tokens;
    buckets.total[b]! += r.output_tokens + (r.prompt_tokens ?? r.client_prompt_tokens ?? 0);
  }
  const latency = Object.fromEntries(LATENCY_KEYS.map((k) => [k, sortedWithOwners(vals[k], owners[k])])) as Record<LatencyKey, SortedValues>;
  return { n, latency, error, duration_s: durMs / 1000, buckets, cost_per_s: costPerS };
}

/**
 * Percentiles (numpy linear interpolation) of the multiset in which value j appears
 * weight[owner[j]] times. One pass over the sorted values.
 */
export function weightedPercentiles(s: SortedValues, weight: Int32Array, ps: readonly number[]): Array<number | null> {
  let total = 0;
  for (let j = 0; j < s.owner.length; j++) total += weight[s.owner[j]!]!;
  if (total === 0) return ps.map(() => null);
  const wanted = ps.flatMap((p) => {
    const h = ((total - 1) * p) / 100;
    return [Math.floor(h), Math.min(total - 1, Math.floor(h) + 1)];
  });
  const positions = [...new Set(wanted)].sort((a, b) => a - b);
  const at = new Map<number, number>();
  let cum = 0;
  let next = 0;
  for (let j = 0; j < s.values.length && next < positions.length; j++) {
    cum += weight[s.owner[j]!]!;
    while (next < positions.length && positions[next]! < cum) at.set(positions[next++]!, s.values[j]!);
  }
  return ps.map((p) => {
    const h = ((total - 1) * p) / 100;
    const lo = Math.floor(h);
    const a = at.get(lo)!;
    const b = at.get(Math.min(total - 1, lo + 1))!;
    return a + (h - lo) * (b - a);
  });
}

/**
 * Moving-block resample of n items in their order: ⌈n/L⌉ blocks of L consecutive items, each
 * starting at a uniform position, L = ⌈√n⌉. Requests sent close together share the engine's
 * batches, so their latencies are correlated; resampling them one by one would understate the
 * spread. The counts sum to ⌈n/L⌉·L ≥ n.
 */
export function blockCounts(rng: Rng, n: number, out: Int32Array): Int32Array {
  out.fill(0);
  if (n === 0) return out;
  const len = Math.ceil(Math.sqrt(n));
  const blocks = Math.ceil(n / len);
  for (let b = 0; b < blocks; b++) {
    const start = rng.int(0, n - len);
    for (let i = start; i < start + len; i++) out[i]! += 1;
  }
  return out;
}

function multinomialCounts(rng: Rng, n: number, out: Int32Array): Int32Array {
  out.fill(0);
  for (let i = 0; i < n; i++) out[rng.int(0, n - 1)]! += 1;
  return out;
}

/** Scratch buffers reused across resamples of one run. */
export interface Scratch {
  requests: Int32Array;
  buckets: Int32Array;
}

export function scratchFor(s: RunSample): Scratch {
  return { requests: new Int32Array(s.n), buckets: new Int32Array(s.buckets.ok.length) };
}

/** The key figures of one bootstrap resample of the run. */
export function resampleFigures(s: RunSample, rng: Rng, scratch: Scratch, goodput: boolean, withItl = true): FigureValues {
  const k = blockCounts(rng, s.n, scratch.requests);
  const out: FigureValues = {};
  for (const key of LATENCY_KEYS) {
    if (key === 'itl' && !withItl) continue;
    const ps = weightedPercentiles(s.latency[key], k, PERCENTILES);
    PERCENTILES.forEach((p, i) => (out[`${key}_p${p}`] = ps[i]!));
  }
  let errors = 0;
  let drawn = 0;
  for (let i = 0; i < s.n; i++) {
    errors += k[i]! * s.error[i]!;
    drawn += k[i]!;
  }
  out.error_rate = drawn > 0 ? errors / drawn : null;
  const nb = s.buckets.ok.length;
  const kb = multinomialCounts(rng, nb, scratch.buckets);
  const sum = (x: Float64Array): number => {
    let t = 0;
    for (let j = 0; j < nb; j++) t += kb[j]! * x[j]!;
    return t;
  };
  const d = s.duration_s;
  const rate = (x: Float64Array): number | null => (d > 0 ? sum(x) / d : null);
  out.request_throughput = rate(s.buckets.ok);
  out.output_throughput = rate(s.buckets.output);
  const total = rate(s.buckets.total);
  out.total_token_throughput = total;
  out.goodput = goodput ? rate(s.buckets.good) : null;
  out.cost_per_1m_tokens = s.cost_per_s !== null && total !== null && total > 0 ? (s.cost_per_s / total) * 1e6 : null;
  return out;
}
