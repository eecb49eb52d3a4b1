/**
 * `sim calibrate`: fits the cost model's free parameters to measured runs of a real server.
 *
 * Each measured run is replayed in the virtual-time engine with the same requests (prompt and
 * output lengths, arrival times or closed-loop concurrency), so every simulated request sees the
 * batch sizes and contexts the scheduler gives it; the residuals are per request:
 *
 *   r_ttft = simulated TTFT / measured TTFT − 1,   r_tpot = simulated TPOT / measured TPOT − 1
 *
 * and the fit minimizes mean(r_ttft²) + mean(r_tpot²) over the parameters, in log space (so they
 * stay positive), by Nelder–Mead. TTFT pins the front-end latency and the prefill rate (compute
 * efficiency, through prompts of different lengths); TPOT pins the decode step (memory efficiency)
 * and its growth with batch (per-sequence overhead), through runs at different loads.
 */
import type { EngineConfig } from '../engine/config.js';
import { efficiencies, engineConfig } from '../engine/config.js';
import type { HardwareProfile } from '../engine/hardware.js';
import type { ModelProfile } from '../engine/models.js';
import { hardwareProfile } from '../engine/profiles.js';
import { runVirtual, type VirtualRequest } from '../virtual.js';
import { nelderMead } from './nelder-mead.js';

/** One measured request, as the records give it (times in ms from the run's start). */
export interface MeasuredRequest {
  /**
   * The record's id (dispatch order). Records come in completion order, so requests sent at the
   * same time (a closed loop's first wave) are replayed in the order the server got them.
   */
  id: number;
  scheduled_ms: number;
  sent_ms: number;
  prompt_tokens: number;
  output_tokens: number;
  ttft_ms: number;
  /** (last token − first token) / (output − 1); null with fewer than 2 tokens. */
  tpot_ms: number | null;
}

export interface CalibrationRun {
  label: string;
  /** Closed loop with this many users, or open loop (arrivals at scheduled_ms), possibly capped. */
  concurrency: number | null;
  max_concurrency: number | null;
  requests: MeasuredRequest[];
}

/** The parameters fitted by default: the ones a run's TTFT and TPOT identify (docs/simulator.md §Calibrate). */
export const FIT_PARAMS = ['memory_efficiency', 'compute_efficiency', 'request_overhead_ms', 'frontend_latency_ms'] as const;
export type FitParam = (typeof FIT_PARAMS)[number];

export interface FitError {
  /** Root mean square of the relative residuals. */
  ttft: number;
  tpot: number;
  /** The objective: mean(r_ttft²) + mean(r_tpot²). */
  objective: number;
}

export interface CalibrationResult {
  start: Record<FitParam, number>;
  fitted: Record<FitParam, number>;
  before: FitError;
  after: FitError;
  evaluations: number;
  requests: number;
}

export interface CalibrateOptions {
  hardware: string | HardwareProfile;
  model: string | ModelProfile;
  /** Engine settings of the measured server (tensor parallelism, max_num_seqs, …). */
  engine?: Partial<EngineConfig>;
  runs: CalibrationRun[];
  maxEvaluations?: number;
  onProgress?: (p: { evaluations: number; max: number; objective: number }) => void;
}

/** Simulated TTFT and TPOT of each request of `run` under `engine`. */
export function replay(run: CalibrationRun, hardware: string | HardwareProfile, model: string | ModelProfile, engine: Partial<EngineConfig>): Replayed {
  const closed = run.concurrency !== null;
  // Replayed in dispatch order whatever the order of `requests` (records come in completion
  // order): by send (closed loop) or scheduled time, ties by id. A replayed id indexes `requests`.
  const rs = run.requests;
  const order = rs.map((_, i) => i).sort((a, b) => (closed ? rs[a]!.sent_ms - rs[b]!.sent_ms : rs[a]!.scheduled_ms - rs[b]!.scheduled_ms) || rs[a]!.id - rs[b]!.id);
  const reqs: VirtualRequest[] = order.map((i) => {
    const q = run.requests[i]!;
    return { id: i, scheduled_ms: q.scheduled_ms, prompt_tokens: q.prompt_tokens, max_tokens: Math.max(1, q.output_tokens) };
  });
  const { records } = runVirtual({
    hardware,
    model,
    engine,
    requests: reqs,
    ...(closed ? { closedLoopConcurrency: run.concurrency as number } : run.max_concurrency !== null ? { maxConcurrency: run.max_concurrency } : {}),
  });
  const ttft: number[] = new Array<number>(run.requests.length).fill(NaN);
  const tpot: (number | null)[] = new Array<number | null>(run.requests.length).fill(null);
  const sent: number[] = new Array<number>(run.requests.length).fill(NaN);
  const end: number[] = new Array<number>(run.requests.length).fill(NaN);
  for (const r of records) {
    sent[r.id] = r.sent_ms;
    end[r.id] = r.end_ms;
    if (r.first_token_ms === null) continue;
    ttft[r.id] = r.first_token_ms - r.sent_ms;
    if (r.output_tokens > 1) tpot[r.id] = (r.end_ms - r.first_token_ms) / (r.output_tokens - 1);
  }
  return { ttft, tpot, sent, end };
}

/** A run replayed in the simulator, per request (indexed as the run's requests). */
export interface Replayed {
  ttft: number[];
  tpot: (number | null)[];
  /** Simulated send and end times (ms), for the run's throughput. */
  sent: number[];
  end: number[];
}

export function fitError(runs: CalibrationRun[], sims: { ttft: number[]; tpot: (number | null)[] }[]): FitError {
  let st = 0, nt = 0, sp = 0, np = 0;
  runs.forEach((run, k) => {
    const s = sims[k]!;
    run.requests.forEach((q, i) => {
      const t = s.ttft[i]!;
      if (q.ttft_ms > 0 && Number.isFinite(t)) {
        st += (t / q.ttft_ms - 1) ** 2;
        nt++;
      }
      const p = s.tpot[i];
      if (q.tpot_ms !== null && q.tpot_ms > 0 && p !== null && p !== undefined) {
        sp += (p / q.tpot_ms - 1) ** 2;
        np++;
      }
    });
  });
  const mt = nt > 0 ? st / nt : 0;
  const mp = np > 0 ? sp / np : 0;
  return { ttft: Math.sqrt(mt), tpot: Math.sqrt(mp), objective: mt + mp };
}

/** The values the fit starts from: the simulator's defaults for this hardware, or the given engine settings. */
export function startValues(hw: HardwareProfile, engine: Partial<EngineConfig>): Record<FitParam, number> {
  const cfg = engineConfig(engine, hw);
  const eff = efficiencies(hw, cfg);
  const pos = (x: number, floor: number): number => (x > 0 ? x : floor);
  return {
    memory_efficiency: eff.memory,
    compute_efficiency: eff.compute,
    request_overhead_ms: pos(cfg.request_overhead_ms, 0.01),
    frontend_latency_ms: pos(cfg.frontend_latency_ms, 1),
  };
}

export function calibrate(o: CalibrateOptions): CalibrationResult {
  const hw = hardwareProfile(o.hardware);
  const base = o.engine ?? {};
  const start = startValues(hw, base);
  const evalAt = (p: Record<FitParam, number>): FitError => fitError(o.runs, o.runs.map((r) => replay(r, hw, o.model, { ...base, ...p })));
  const fromX = (x: number[]): Record<FitParam, number> => Object.fromEntries(FIT_PARAMS.map((k, i) => [k, start[k] * Math.exp(x[i]!)])) as Record<FitParam, number>;
  const max = o.maxEvaluations ?? 1200;
  const objective = (x: number[]): number => {
    const p = fromX(x);
    // Efficiencies are fractions of a peak: beyond 1 is no physical server.
    if (p.memory_efficiency > 1 || p.compute_efficiency > 1) return Number.MAX_VALUE;
    return evalAt(p).objective;
  };
  const before = evalAt(start);
  // The objective is piecewise smooth (a request slipping past a step boundary jumps), so a
  // simplex can stall on a ridge: restart it from the best point with a fresh, smaller simplex.
  let x = FIT_PARAMS.map(() => 0);
  let best = Infinity;
  let used = 0;
  for (let restart = 0; restart < 6 && used < max; restart++) {
    const r = nelderMead(objective, x, {
      step: FIT_PARAMS.map(() => 0.2 / (restart + 1)),
      maxEvaluations: max - used,
      tolerance: 1e-10,
      onIteration: (it) => o.onProgress?.({ evaluations: used + it.evaluations, max, objective: Math.min(best, it.best) }),
    });
    used += r.evaluations;
    const gain = best - r.value;
    if (r.value < best) {
      best = r.value;
      x = r.x;
    }
    // Converged (synthetic runs fit exactly), or a restart no longer helps.
    if (best < 1e-9 || gain < 1e-7) break;
  }
  const fitted = fromX(x);
  return { start, fitted, before, after: evalAt(fitted), evaluations: used, requests: o.runs.reduce((s, q) => s + q.requests.length, 0) };
}
