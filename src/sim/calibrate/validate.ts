/**
 * `sim validate`: how far the simulator (the "twin") is from a user's own measured runs. Each run
 * is replayed with its own requests and send times (calibrate/fit.ts replay) and every figure is
 * compared per load level: mean and p90 TTFT, mean and p90 TPOT, mean end-to-end latency and
 * output throughput. The error is simulated / measured − 1; the summary per figure (median and
 * largest |error| over the load levels) is the error bar to put on a plan made with the profile.
 */
import type { EngineConfig } from '../engine/config.js';
import type { HardwareProfile } from '../engine/hardware.js';
import type { ModelProfile } from '../engine/models.js';
import { replay, type CalibrationRun, type Replayed } from './fit.js';
import { percentile } from '../../util/percentile.js';

export const VALIDATE_FIGURES = ['ttft_mean', 'ttft_p90', 'tpot_mean', 'tpot_p90', 'e2e_mean', 'output_throughput'] as const;
export type ValidateFigure = (typeof VALIDATE_FIGURES)[number];

export interface FigureComparison {
  figure: ValidateFigure;
  /** ms, or output tokens/s for throughput. */
  measured: number;
  simulated: number;
  /** simulated / measured − 1 */
  error: number;
}

export interface LoadLevelValidation {
  label: string;
  /** "concurrency 8", "open loop", "open loop, max concurrency 16". */
  load: string;
  requests: number;
  figures: FigureComparison[];
}

export interface ValidationSummary {
  runs: number;
  requests: number;
  levels: LoadLevelValidation[];
  /** Per figure over the load levels: median and largest |error|. */
  error_bar: Record<ValidateFigure, { median_abs_error: number; max_abs_error: number }>;
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
/** numpy's linear percentile of unsorted values, p in [0, 100]. */
function percentileOf(xs: number[], p: number): number {
  return percentile([...xs].sort((a, b) => a - b), p);
}
function median(xs: number[]): number {
  return percentileOf(xs, 50);
}

/** The six figures of one run, measured and simulated, over the requests both have. */
export function compareRun(run: CalibrationRun, sim: Replayed): FigureComparison[] {
  const mT: number[] = [], sT: number[] = [], mP: number[] = [], sP: number[] = [], mE: number[] = [], sE: number[] = [];
  let mTok = 0, sTok = 0, mStart = Infinity, mEnd = -Infinity, sStart = Infinity, sEnd = -Infinity;
  run.requests.forEach((q, i) => {
    const t = sim.ttft[i]!;
    if (!Number.isFinite(t)) return;
    mT.push(q.ttft_ms);
    sT.push(t);
    const p = sim.tpot[i];
    if (q.tpot_ms !== null && p !== null && p !== undefined) {
      mP.push(q.tpot_ms);
      sP.push(p);
    }
    const mLat = q.ttft_ms + (q.tpot_ms ?? 0) * Math.max(0, q.output_tokens - 1);
    mE.push(mLat);
    sE.push(sim.end[i]! - sim.sent[i]!);
    mTok += q.output_tokens;
    sTok += q.output_tokens;
    mStart = Math.min(mStart, q.sent_ms);
    mEnd = Math.max(mEnd, q.sent_ms + mLat);
    sStart = Math.min(sStart, sim.sent[i]!);
    sEnd = Math.max(sEnd, sim.end[i]!);
  });
  const out: FigureComparison[] = [];
  const add = (figure: ValidateFigure, measured: number, simulated: number): void => {
    if (measured > 0 && Number.isFinite(simulated)) out.push({ figure, measured, simulated, error: simulated / measured - 1 });
  };
  if (mT.length > 0) {
    add('ttft_mean', mean(mT), mean(sT));
    add('ttft_p90', percentileOf(mT, 90), percentileOf(sT, 90));
  }
  if (mP.length > 0) {
    add('tpot_mean', mean(mP), mean(sP));
    add('tpot_p90', percentileOf(mP, 90), percentileOf(sP, 90));
  }
  if (mE.length > 0) {
    add('e2e_mean', mean(mE), mean(sE));
    if (mEnd > mStart && sEnd > sStart) add('output_throughput', (mTok / (mEnd - mStart)) * 1000, (sTok / (sEnd - sStart)) * 1000);
  }
  return out;
}

function loadOf(run: CalibrationRun): string {
  if (run.concurrency !== null) return `concurrency ${run.concurrency}`;
  return run.max_concurrency !== null ? `open loop, max concurrency ${run.max_concurrency}` : 'open loop';
}

export interface ValidateOptions {
  hardware: string | HardwareProfile;
  model: string | ModelProfile;
  engine?: Partial<EngineConfig>;
  runs: CalibrationRun[];
  onRun?: (done: number, total: number) => void;
}

export function validateTwin(o: ValidateOptions): ValidationSummary {
  const levels: LoadLevelValidation[] = o.runs.map((run, k) => {
    const figures = compareRun(run, replay(run, o.hardware, o.model, o.engine ?? {}));
    o.onRun?.(k + 1, o.runs.length);
    return { label: run.label, load: loadOf(run), requests: run.requests.length, figures };
  });
  const error_bar = Object.fromEntries(
    VALIDATE_FIGURES.map((f) => {
      const errs = levels.flatMap((l) => l.figures.filter((x) => x.figure === f).map((x) => Math.abs(x.error)));
      return [f, errs.length === 0 ? { median_abs_error: NaN, max_abs_error: NaN } : { median_abs_error: median(errs), max_abs_error: Math.max(...errs) }];
    }),
  ) as ValidationSummary['error_bar'];
  return { runs: o.runs.length, requests: o.runs.reduce((s, r) => s + r.requests.length, 0), levels, error_bar };
}
