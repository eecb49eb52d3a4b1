/**
 * Replays a published measurement (cases.ts) in the virtual-time engine and computes the same
 * figures the source's tool computed: AIPerf's and vLLM benchmark_serving's definitions.
 */
import type { EngineConfig } from '../../../src/sim/index.js';
import { modelProfile, presetEngine, runVirtual, type VirtualRequest } from '../../../src/sim/index.js';
import type { RequestRecord } from '../../../src/record/record.js';
import type { FidelityCase, Figure, Measured, Stat } from './cases.js';

export interface CaseResult {
  id: string;
  figure: Figure;
  stat: Stat;
  measured: number;
  simulated: number;
  /** simulated / measured */
  ratio: number;
  held_out: boolean;
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n === 0 ? NaN : n % 2 ? s[(n - 1) / 2]! : (s[n / 2 - 1]! + s[n / 2]!) / 2;
}

function figures(c: FidelityCase, recs: RequestRecord[]): Record<string, number> {
  // Burst cases: requests the source recorded with no output count TTFT 0 and no TPOT, as vLLM's script did.
  const counted = (r: RequestRecord): number => (c.kind === 'burst' ? (c.output_lens[r.id] as number) : r.output_tokens);
  const ttft: number[] = [];
  const tpot: number[] = [];
  const gaps: number[] = [];
  let tokens = 0;
  recs.forEach((r) => {
    const n = counted(r);
    tokens += n;
    const first = r.first_token_ms as number;
    ttft.push(n === 0 ? 0 : first - r.sent_ms);
    if (n > 1) tpot.push((r.end_ms - first) / (n - 1));
    for (let k = 1; k < r.chunk_ms.length; k++) gaps.push((r.chunk_ms[k] as number) - (r.chunk_ms[k - 1] as number));
  });
  const t0 = Math.min(...recs.map((r) => r.sent_ms));
  const t1 = Math.max(...recs.map((r) => r.end_ms));
  return {
    'ttft:mean': mean(ttft),
    'ttft:p50': median(ttft),
    'tpot:mean': mean(tpot),
    // AIPerf's ITL is the per-request mean gap, averaged: TPOT by vLLM's definition.
    'itl:mean': mean(tpot),
    'itl:p50': median(gaps),
    'throughput:mean': (tokens / (t1 - t0)) * 1000,
  };
}

export function requestsOf(c: FidelityCase): VirtualRequest[] {
  if (c.kind === 'closed') return Array.from({ length: c.requests }, (_, i) => ({ id: i, scheduled_ms: 0, prompt_tokens: c.input, max_tokens: c.output }));
  return c.input_lens.map((p, i) => ({ id: i, scheduled_ms: 0, prompt_tokens: p, max_tokens: Math.max(1, c.output_lens[i] as number) }));
}

/**
 * Closed loops start their users spread evenly over one request's duration (measured in the
 * simulator alone at concurrency 1), as a sustained run's users are: users that all start
 * together stay in lockstep in a deterministic engine and queue behind each other's prefills.
 */
function staggered(c: FidelityCase, engine: Partial<EngineConfig>): { closedLoopConcurrency: number; closedLoopUsers: (k: number) => { start_ms: number; stop_ms: number } } | object {
  if (c.kind !== 'closed') return {};
  const solo = runVirtual({ hardware: c.hardware, model: c.model, engine, requests: requestsOf(c).slice(0, 1), closedLoopConcurrency: 1 }).records[0]!;
  const period = (solo.end_ms - solo.sent_ms) / c.concurrency;
  return { closedLoopConcurrency: c.concurrency, closedLoopUsers: (k: number) => ({ start_ms: k * period, stop_ms: Infinity }) };
}

export function runCase(c: FidelityCase, params: Partial<EngineConfig> = {}): CaseResult[] {
  const engine = presetEngine(c.preset ?? 'vllm-v1', modelProfile(c.model), { ...params, ...c.engine, tensor_parallel: c.gpus });
  const { records } = runVirtual({ hardware: c.hardware, model: c.model, engine, requests: requestsOf(c), ...staggered(c, engine) });
  records.sort((a, b) => a.id - b.id);
  // Closed loops: the first wave (one request per user, all sent together) is warm-up; the
  // sources report sustained runs, so figures come from the requests after it.
  const f = figures(c, c.kind === 'closed' ? records.slice(c.concurrency) : records);
  return c.measured.map((m: Measured) => {
    const simulated = f[`${m.figure}:${m.stat}`] as number;
    return { id: c.id, figure: m.figure, stat: m.stat, measured: m.value, simulated, ratio: simulated / m.value, held_out: c.held_out === true };
  });
}

/** Median |ratio − 1| per figure type (tpot and itl together: both are per-token times). */
export function medianErrors(rs: CaseResult[]): Record<string, number> {
  const by: Record<string, number[]> = {};
  for (const r of rs) {
    const k = r.figure === 'itl' ? 'tpot' : r.figure;
    (by[k] ??= []).push(Math.abs(r.ratio - 1));
  }
  by['all'] = rs.map((r) => Math.abs(r.ratio - 1));
  return Object.fromEntries(Object.entries(by).map(([k, v]) => [k, median(v)]));
}
