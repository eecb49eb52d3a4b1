/**
 * Bootstrap resampling of a run's key figures.
 *
 * Resampling unit for the latency percentiles and the error rate: non-overlapping blocks of
 * requests (Carlstein). The measure-phase requests in their order are cut into B = ⌈n/L⌉ blocks
 * of L = ⌈√n⌉ consecutive requests (block b = requests ⌊b·n/B⌋ … ⌊(b+1)·n/B⌋ − 1, so the sizes
 * differ by at most one); a resample draws B blocks with replacement, and every request of block b
 * counts as often as b was drawn. Requests sent close together share the engine's batches, so
 * their latencies are correlated; resampling them one by one would understate the spread.
 * Percentiles are taken of the values of the drawn requests (ITL: of every gap of every drawn
 * request), with numpy's linear interpolation. Because a value's weight depends only on its
 * block, each figure is kept as its blocks' distinct values with counts, grouped by chunk of
 * value, with an index of the blocks' counts below each chunk (block-values.ts): a resample costs
 * B draws and, per wanted rank, a binary search over chunks (B look-ups a step) and one chunk's
 * entries — independent of how many values the run holds, so ITL gets as many resamples as every
 * other figure.
 *
 * Throughputs (requests/s, tokens/s, goodput, cost per 1M tokens) are window totals divided by
 * the window: resampling requests inside a fixed window would hold them at the observed value
 * (every request is counted once on average, and the window does not move), so for them the unit
 * is the 1-second bucket of the measured window (each request's tokens and completion counted in
 * the bucket of its end): a resample draws the run's buckets with replacement, after its blocks,
 * from the same generator.
 */
import type { RequestRecord } from '../../record/record.js';
import type { Rng } from '../../util/rng.js';
import { isGood, SLO_METRICS, type PooledMetricDef, type RequestMetricDef, type RunTotals, type Slo } from '../../metrics/index.js';
import { perMillionTokens } from '../../metrics/cost.js';
import { errorRate } from '../../metrics/defs/errors.js';
import { goodput as goodputDef, outputThroughput, requestThroughput, totalTokenThroughput } from '../../metrics/defs/throughput.js';
import { interpolate } from '../../util/percentile.js';
import { LATENCY_KEYS, PERCENTILES, type FigureValues, type LatencyKey } from './key-figures.js';
import { BlockValuesBuilder, cutPoints, newSelection, rankValue, startFigure, type BlockValues, type Selection } from './block-values.js';

const ttft = SLO_METRICS.ttft_ms as RequestMetricDef;
const tpot = SLO_METRICS.tpot_ms as RequestMetricDef;
const e2el = SLO_METRICS.e2el_ms as RequestMetricDef;
const itl = SLO_METRICS.itl_ms as PooledMetricDef;
/** The per-request figures with their definitions (one array, not one a record). */
const PER_REQUEST = [
  ['ttft', ttft],
  ['tpot', tpot],
  ['e2el', e2el],
] as const;

export interface RunSample {
  n: number;
  /** B: the number of blocks (blockShape). */
  blocks: number;
  latency: Record<LatencyKey, BlockValues>;
  /** Per block: its requests, and those of them whose status is 'error'. */
  blockSize: Int32Array;
  blockErrors: Int32Array;
  duration_s: number;
  /** Per 1-second bucket: ok completions, good completions, output tokens, input + output tokens. */
  buckets: { ok: Float64Array; good: Float64Array; output: Float64Array; total: Float64Array };
  /** Cost per second of the window (price × GPUs / 3600), when the run was costed. */
  cost_per_s: number | null;
}

/** The block length L = ⌈√n⌉ and the block count B = ⌈n/L⌉ for n requests. */
export function blockShape(n: number): { len: number; blocks: number } {
  const len = Math.ceil(Math.sqrt(n));
  return { len, blocks: len === 0 ? 0 : Math.ceil(n / len) };
}

/** The first request of block b (b = 0 … blocks; b = blocks gives n). */
export function blockStart(b: number, n: number, blocks: number): number {
  return Math.floor((b * n) / blocks);
}

/** Requests the cut points are chosen from: at most this many, evenly spread over the run. */
const PROBE_REQUESTS = 65536;
/** For ITL: at most this many requests, GAPS_PER_PROBE gaps of each (spread over the request). */
const GAP_PROBE_REQUESTS = 8192;
const GAPS_PER_PROBE = 8;

/**
 * Each figure's cut points (block-values.ts) from evenly spread requests: the value of every
 * ⌈n/PROBE_REQUESTS⌉-th, or (ITL) a few gaps of every ⌈n/GAP_PROBE_REQUESTS⌉-th; the number of
 * values is estimated from the same requests. The cut points decide only the cost of a resample.
 */
function probeCuts(measure: readonly RequestRecord[], blocks: number): Record<LatencyKey, Float64Array> {
  const probes = { ttft: [] as number[], tpot: [] as number[], e2el: [] as number[], itl: [] as number[] };
  const stride = Math.max(1, Math.ceil(measure.length / PROBE_REQUESTS));
  for (let i = 0; i < measure.length; i += stride) {
    const r = measure[i]!;
    if (r.status !== 'ok') continue;
    for (const [key, def] of PER_REQUEST) {
      const v = def.value(r);
      if (v !== null) probes[key].push(v);
    }
  }
  const gapStride = Math.max(1, Math.ceil(measure.length / GAP_PROBE_REQUESTS));
  let gaps = 0;
  let gapArray = new Float64Array(256);
  for (let i = 0, k = 0; i < measure.length; i += gapStride, k++) {
    const r = measure[i]!;
    if (r.status !== 'ok') continue;
    const g = itl.count(r);
    if (g === 0) continue;
    if (g > gapArray.length) gapArray = new Float64Array(g);
    itl.fill(r, gapArray, 0);
    for (let j = 0; j < Math.min(g, GAPS_PER_PROBE); j++) probes.itl.push(gapArray[(k + Math.floor((j * g) / GAPS_PER_PROBE)) % g]!);
    gaps += g;
  }
  const cutsOf = (xs: number[], values: number) => cutPoints(Float64Array.from(xs), values, blocks);
  return {
    ttft: cutsOf(probes.ttft, probes.ttft.length * stride),
    tpot: cutsOf(probes.tpot, probes.tpot.length * stride),
    e2el: cutsOf(probes.e2el, probes.e2el.length * stride),
    itl: cutsOf(probes.itl, gaps * gapStride),
  };
}

/** Everything a resample needs from the measure-phase records of one run. */
export function buildSample(
  measure: readonly RequestRecord[],
  window: { start_ms: number; end_ms: number } | null,
  slos: readonly Slo[] | null,
  costPerS: number | null,
): RunSample {
  const n = measure.length;
  const { blocks } = blockShape(n);
  const cuts = probeCuts(measure, blocks);
  const cols = {
    ttft: new BlockValuesBuilder(blocks, cuts.ttft),
    tpot: new BlockValuesBuilder(blocks, cuts.tpot),
    e2el: new BlockValuesBuilder(blocks, cuts.e2el),
    itl: new BlockValuesBuilder(blocks, cuts.itl),
  };
  const perRequest = [
    [cols.ttft, ttft],
    [cols.tpot, tpot],
    [cols.e2el, e2el],
  ] as const;
  const blockSize = new Int32Array(blocks);
  const blockErrors = new Int32Array(blocks);
  const start = window?.start_ms ?? 0;
  const durMs = window ? window.end_ms - window.start_ms : 0;
  const nb = Math.max(1, Math.ceil(durMs / 1000));
  const buckets = { ok: new Float64Array(nb), good: new Float64Array(nb), output: new Float64Array(nb), total: new Float64Array(nb) };
  for (let b = 0; b < blocks; b++) {
    const to = blockStart(b + 1, n, blocks);
    for (let i = blockStart(b, n, blocks); i < to; i++) {
      const r = measure[i]!;
      blockSize[b]!++;
      if (r.status === 'error') blockErrors[b]!++;
      if (r.status !== 'ok') continue;
      for (const [col, def] of perRequest) {
        const v = def.value(r);
        if (v !== null) col.push(v);
      }
      const g = itl.count(r);
      const room = cols.itl.room(g);
      itl.fill(r, room.array, room.offset);
      cols.itl.added(g);
      const k = Math.min(nb - 1, Math.max(0, Math.floor((r.end_ms - start) / 1000)));
      buckets.ok[k]! += 1;
      if (slos && slos.length > 0 && isGood(r, slos)) buckets.good[k]! += 1;
      buckets.output[k]! += r.output_tokens;
      buckets.total[k]! += r.output_tokens + (r.prompt_tokens ?? r.client_prompt_tokens ?? 0);
    }
    for (const col of Object.values(cols)) col.endBlock();
  }
  const latency = Object.fromEntries(LATENCY_KEYS.map((k) => [k, cols[k].finish()])) as Record<LatencyKey, BlockValues>;
  return { n, blocks, latency, blockSize, blockErrors, duration_s: durMs / 1000, buckets, cost_per_s: costPerS };
}

/**
 * The point figures figuresOfRun reads off the run's metrics (key-figures.ts), without computing
 * the metrics: each latency percentile from the sample itself, every block counted once — the
 * multiset computeMetrics summarizes, so the same order statistics and the same interpolation
 * (numpy's, util/percentile.ts) give the same numbers — and the throughputs and the error rate
 * from the run's totals `t` (runTotals over the same records). Only for measure-phase records of
 * which none was retried: the sample holds every ok attempt, the metrics a request's last one.
 */
export function figuresOfSample(s: RunSample, t: RunTotals, costPer1m: number | null): FigureValues {
  const widest = Math.max(0, ...LATENCY_KEYS.map((k) => s.latency[k].widest));
  const sel = newSelection(s.blocks, widest);
  for (let b = 0; b < s.blocks; b++) {
    sel.blocks[b] = b;
    sel.weight[b] = 1;
  }
  sel.size = s.blocks;
  const out: FigureValues = {};
  for (const key of LATENCY_KEYS) {
    const values = s.latency[key];
    const n = startFigure(values, sel);
    for (const p of PERCENTILES) {
      if (n === 0) {
        out[`${key}_p${p}`] = null;
        continue;
      }
      // the float steps of util/percentile.ts, on the ranks it reads
      const h = (n - 1) * (p / 100);
      const lo = Math.floor(h);
      out[`${key}_p${p}`] = interpolate(rankValue(values, sel, lo), rankValue(values, sel, Math.min(lo + 1, n - 1)), h - lo);
    }
  }
  out.request_throughput = requestThroughput.value(t);
  out.output_throughput = outputThroughput.value(t);
  out.total_token_throughput = totalTokenThroughput.value(t);
  out.goodput = goodputDef.value(t);
  out.error_rate = errorRate.value(t);
  out.cost_per_1m_tokens = costPer1m;
  return out;
}

/**
 * Percentiles (numpy linear interpolation) of the multiset in which value j appears
 * weight[owner[j]] times, the values sorted ascending: one pass. The plain definition, the
 * oracle the tests hold the block index to.
 */
export function weightedPercentiles(s: { values: Float64Array; owner: Int32Array }, weight: Int32Array, ps: readonly number[]): Array<number | null> {
  let total = 0;
  for (let j = 0; j < s.owner.length; j++) total += weight[s.owner[j]!]!;
  return percentilesAtRanks(total, ps, (rank) => {
    let cum = 0;
    for (let j = 0; j < s.values.length; j++) {
      cum += weight[s.owner[j]!]!;
      if (rank < cum) return s.values[j]!;
    }
    throw new Error('weightedPercentiles: rank beyond the total');
  });
}

/** numpy's linear interpolation of `total` weighted values, `at(rank)` the value at a rank of the expanded multiset. */
function percentilesAtRanks(total: number, ps: readonly number[], at: (rank: number) => number): Array<number | null> {
  if (total === 0) return ps.map(() => null);
  return ps.map((p) => {
    const h = ((total - 1) * p) / 100;
    const lo = Math.floor(h);
    const a = at(lo);
    const b = at(Math.min(total - 1, lo + 1));
    return a + (h - lo) * (b - a);
  });
}

/**
 * The resample's block draws: B blocks with replacement, as the drawn blocks and how often each
 * (sel.blocks, sel.weight, sel.size), blocks ascending: the draws of B rng.int(0, B − 1) calls.
 */
export function drawBlocks(rng: Rng, blocks: number, counts: Int32Array, sel: Selection): Selection {
  counts.fill(0);
  rng.tally(blocks, counts);
  let size = 0;
  for (let b = 0; b < blocks; b++) {
    if (counts[b]! === 0) continue;
    sel.blocks[size] = b;
    sel.weight[size++] = counts[b]!;
  }
  sel.size = size;
  return sel;
}

/** n draws with replacement from n items (out holds n counts). */
function multinomialCounts(rng: Rng, out: Int32Array): Int32Array {
  out.fill(0);
  rng.tally(out.length, out);
  return out;
}

/** Scratch buffers reused across resamples of one run. */
export interface Scratch {
  /** How often the resample drew each block. */
  counts: Int32Array;
  selection: Selection;
  buckets: Int32Array;
}

export function scratchFor(s: RunSample): Scratch {
  const widest = Math.max(0, ...LATENCY_KEYS.map((k) => s.latency[k].widest));
  return {
    counts: new Int32Array(s.blocks),
    selection: newSelection(s.blocks, widest),
    buckets: new Int32Array(s.buckets.ok.length),
  };
}

/** The key figures of one bootstrap resample of the run. */
export function resampleFigures(s: RunSample, rng: Rng, scratch: Scratch, goodput: boolean): FigureValues {
  const sel = drawBlocks(rng, s.blocks, scratch.counts, scratch.selection);
  const out: FigureValues = {};
  for (const key of LATENCY_KEYS) {
    const values = s.latency[key];
    const total = startFigure(values, sel);
    // numpy's linear interpolation between the two ranks around (total − 1)·p; PERCENTILES
    // ascending, so the ranks are, and the second of a pair is mostly in the chunk just read
    for (const p of PERCENTILES) {
      if (total === 0) {
        out[`${key}_p${p}`] = null;
        continue;
      }
      const h = ((total - 1) * p) / 100;
      const lo = Math.floor(h);
      const a = rankValue(values, sel, lo);
      const b = rankValue(values, sel, Math.min(total - 1, lo + 1));
      out[`${key}_p${p}`] = a + (h - lo) * (b - a);
    }
  }
  // Σ k_b × errors_b over Σ k_b × requests_b. Integers: exact.
  let errors = 0;
  let drawn = 0;
  for (let i = 0; i < sel.size; i++) {
    errors += sel.weight[i]! * s.blockErrors[sel.blocks[i]!]!;
    drawn += sel.weight[i]! * s.blockSize[sel.blocks[i]!]!;
  }
  out.error_rate = drawn > 0 ? errors / drawn : null;
  const nb = s.buckets.ok.length;
  const kb = multinomialCounts(rng, scratch.buckets);
  // The drawn buckets' sums, all in one pass (each added in bucket order, as one pass apiece would).
  const { ok, good, output, total } = s.buckets;
  let okSum = 0;
  let goodSum = 0;
  let outputSum = 0;
  let totalSum = 0;
  for (let j = 0; j < nb; j++) {
    const k = kb[j]!;
    okSum += k * ok[j]!;
    goodSum += k * good[j]!;
    outputSum += k * output[j]!;
    totalSum += k * total[j]!;
  }
  const d = s.duration_s;
  const rate = (sum: number): number | null => (d > 0 ? sum / d : null);
  out.request_throughput = rate(okSum);
  out.output_throughput = rate(outputSum);
  out.total_token_throughput = rate(totalSum);
  out.goodput = goodput ? rate(goodSum) : null;
  out.cost_per_1m_tokens = s.cost_per_s !== null && d > 0 ? perMillionTokens(s.cost_per_s * d, totalSum) : null;
  return out;
}
