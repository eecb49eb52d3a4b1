/**
 * sweep.json: the versioned result of a sweep (docs/sweep-schema.md). Bump SWEEP_SCHEMA on
 * any breaking change to its shape.
 */
import type { RunEnvironment } from '../analysis/environment.js';
import type { CurveFinding, CurveParams } from '../analysis/load-curve.js';
import type { RunValidity } from '../analysis/run-validity.js';
import type { ObjectiveResult, RunMetrics } from '../metrics/index.js';
import type { QualityFigures } from '../metrics/quality.js';
import type { ServerObservation } from '../observe/observation.js';
import type { PrefixCacheCheck, StagePrefixCache } from './prefix-cache.js';
import type { SearchOutcome } from './search.js';
import type { BatchSweepFindings, SweepDimension } from './batch-sizes.js';
import type { StageLoad, StageLoadJson, StageRole } from './stages.js';

export const SWEEP_SCHEMA = 'infermeter.sweep/2';

/**
 * The schema of a batch-size sweep (`sweep.dimension: "batch_size"`): /2 plus the dimension. Its
 * stages all have the same load, so a /2 reader would read them as a load curve over one load
 * (and find a knee in it); a load sweep is written as /2 still, which every /2 reader reads right.
 */
export const BATCH_SWEEP_SCHEMA = 'infermeter.sweep/3';

/** The schema a sweep is written with: /3 for a batch-size sweep, else /2. */
export function sweepSchemaFor(dimension: SweepDimension): string {
  return dimension === 'batch_size' ? BATCH_SWEEP_SCHEMA : SWEEP_SCHEMA;
}

/**
 * Every sweep.json version this version reads. /2 (confirmed search answers, prefix-cache figures)
 * changed the meaning of `search.found`: in /1 the highest probe that passed, in /2 the highest
 * load whose confirmation run passed too. A /1 file reads as a search without confirmations.
 */
export const READABLE_SWEEP_SCHEMAS: readonly string[] = ['infermeter.sweep/1', SWEEP_SCHEMA, BATCH_SWEEP_SCHEMA];

/**
 * Whether a stage's SLO verdict counts toward the sweep's: every stage of the curve does; `--auto`'s
 * all-at-once max-throughput probe does not — it is sent to find the ceiling, not to meet latency
 * SLOs, and would fail any latency SLO by design.
 */
export function stageJudgedBySlos(s: Pick<StageResult, 'role'>): boolean {
  return s.role !== 'probe';
}

/**
 * Whether a sweep's SLO gate passes: a search found a load; a batch-size sweep has a batch size
 * that held every SLO (larger ones failing them is what it measures); a load sweep's stages that
 * count (stageJudgedBySlos) all held.
 */
export function sweepGatesPass(r: { search: { found: number | null } | null; stages: ReadonlyArray<Pick<StageResult, 'role' | 'slos_pass'>>; analysis: Pick<SweepAnalysis, 'batch'> }, mode: 'list' | 'auto' | 'search'): boolean {
  if (mode === 'search') return r.search?.found !== null && r.search?.found !== undefined;
  if (r.analysis.batch) return r.analysis.batch.largest_meeting_slos !== null;
  return !r.stages.some((s) => stageJudgedBySlos(s) && s.slos_pass === false);
}

/** One stage: the figures of its measure-phase records (its `stage` index in records.jsonl). */
export interface StageResult {
  index: number;
  role: StageRole;
  load: StageLoad;
  /** Every figure, as in result.json's `metrics`. */
  metrics: RunMetrics;
  validity: RunValidity | null;
  slos: ObjectiveResult[] | null;
  /** Every SLO held (null without SLOs). */
  slos_pass: boolean | null;
  /** Why the stage was stopped before its end (an SLO that could no longer be met); null if it ran out. */
  stopped_early: string | null;
  /** Records the stage produced (all phases). */
  records: number;
  wall_s: number;
  /** Answer-check figures of the stage (result.json's `quality`, docs/quality.md); null when no request carried a check. */
  quality?: QualityFigures | null;
  /** The server's side of an HTTP stage (result.json's `server`, docs/observe.md); null in virtual time or with --no-metrics. */
  server?: ServerObservation | null;
  /** A distributed stage (sweep --distributed): the workers that shared it, each one's share and health; absent otherwise. */
  distributed?: Record<string, unknown> | null;
  /** The server's prefix-cache hit rate over the stage (prefix-cache.ts); null when not observed (HTTP without the series, --no-metrics); absent before schema /2. */
  prefix_cache?: StagePrefixCache | null;
  /** A batch-size sweep's stage: the inputs (rerank/score: documents) per request it sent; absent in a load sweep. */
  batch_size?: number;
}

export interface SweepAnalysis {
  /** Stage indices in ascending offered load (the curve's order). */
  order: number[];
  saturation: CurveFinding | null;
  knee: (CurveFinding & { score: number }) | null;
  degradation: CurveFinding | null;
  params: CurveParams;
  /** A batch-size sweep: the best batch size for inputs/s and the largest meeting the SLOs (saturation, knee and degradation are null: not run); absent in a load sweep. */
  batch?: BatchSweepFindings;
}

export interface SweepAuto {
  /** Request throughput of the synchronous baseline and of the max-throughput probe (req/s). */
  baseline_request_per_s: number | null;
  probe_request_per_s: number | null;
  rates: number[];
}

export interface SweepSearch extends SearchOutcome {
  kind: 'rate' | 'concurrency';
  precision: number;
  /** Probes in the order run: load, stage index, pass, and why. */
  probes: Array<{ load: number; stage: number; pass: boolean; why: string }>;
  /** The bracketing's answer, before confirmation (`found` is the confirmed one); absent in /1 files. */
  bracketed?: number | null;
  /** Confirmation runs in the order run (run-sweep.ts confirm): the answer, then each step down; absent in /1 files. */
  confirmations?: Array<{ load: number; stage: number; pass: boolean; why: string }>;
}

export interface SweepResult {
  /** SWEEP_SCHEMA when written; a file read back may hold an older READABLE_SWEEP_SCHEMAS version. */
  schema: string;
  infermeter_version: string;
  sweep: {
    id: string | null;
    name: string;
    mode: 'list' | 'auto' | 'search';
    /** What varies between the stages: the load, or the batch size at one fixed load (`--batch-sizes`); absent in sweeps written before it (load). */
    dimension?: SweepDimension;
    driver: 'http' | 'virtual';
    started_at: string;
    ended_at: string;
    interrupted: boolean;
    /** sweep --distributed: run id, NATS URL (credentials removed) and the workers; absent otherwise. */
    distributed?: Record<string, unknown> | null;
  };
  target: Record<string, unknown>;
  /** What every stage shares: per-stage request count / duration, warm-up, seed, arrival. */
  load: Record<string, unknown>;
  workload: Record<string, unknown>;
  /** Stages whose validity verdict is invalid (their figures are not a measurement of the server); absent in sweeps written before it. */
  invalid_stages?: number[];
  /** --allow-invalid: invalid stages were accepted (the sweep can pass with them). */
  allow_invalid?: boolean;
  /** The SLOs every stage is judged by (canonical text). */
  slos: string[];
  stages: Array<Omit<StageResult, 'load'> & { load: StageLoadJson }>;
  analysis: SweepAnalysis;
  auto: SweepAuto | null;
  search: SweepSearch | null;
  /** Every stage's SLOs held (search: a rate was found). */
  pass: boolean;
  /** Whether the stages' prefix-cache hit rates agree (prefix-cache.ts); null when fewer than two stages have one; absent before /2. */
  prefix_cache?: PrefixCacheCheck | null;
  /** The capacity check made before the first stage, on the most demanding one (as result.json's `client.capacity_check`); absent when none was made. */
  capacity_check?: Record<string, unknown>;
  /** What every stage measured (result-schema.md §environment), captured once before the first stage; absent in sweeps written before it. */
  environment?: RunEnvironment | null;
}
