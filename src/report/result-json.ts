/**
 * result.json: the versioned, documented result of a run (docs/result-schema.md).
 * Bump RESULT_SCHEMA on any breaking change to its shape.
 */
import type { ObjectiveResult, RunMetrics } from '../metrics/index.js';
import type { RunValidity } from '../analysis/run-validity.js';
import type { CostFigures } from '../metrics/cost.js';
import type { ServerObservation } from '../observe/observation.js';
import type { ColdStartLatency } from '../metrics/cold-start.js';
import type { QualityFigures } from '../metrics/quality.js';

/** --cold-start: the health wait, the first response, and the first requests against the rest. */
export interface ColdStartFigures extends ColdStartLatency {
  time_to_healthy_ms: number;
  polls: number;
  path: string;
  time_to_first_response_ms: number | null;
}

export const RESULT_SCHEMA = 'infermeter.result/2';
/** Schemas whose figures readers (compare) still accept: /1 differs only in a validity check's name. */
export const READABLE_RESULT_SCHEMAS: readonly string[] = ['infermeter.result/1', RESULT_SCHEMA];

/**
 * Why a result.json's `schema` is not one this build reads (null when it is): a later version may
 * have changed what a field means, so its figures are not read as if they were ours.
 */
export function unreadableResultSchema(doc: unknown): string | null {
  const schema = typeof doc === 'object' && doc !== null ? (doc as { schema?: unknown }).schema : undefined;
  if (typeof schema === 'string' && READABLE_RESULT_SCHEMAS.includes(schema)) return null;
  const reads = `this build reads ${READABLE_RESULT_SCHEMAS.join(' and ')}`;
  if (typeof schema === 'string' && schema.startsWith('infermeter.result/')) return `schema "${schema}" is not one ${reads} (written by a newer infermeter?)`;
  return `not an infermeter result (schema ${JSON.stringify(schema ?? null)}; ${reads})`;
}

export interface RunResult {
  schema: typeof RESULT_SCHEMA;
  infermeter_version: string;
  run: {
    id: string | null;
    name: string;
    started_at: string;
    ended_at: string;
    interrupted: boolean;
    /** 'http' (a server over HTTP) or 'virtual' (simulated engine stepped in virtual time). */
    driver: 'http' | 'virtual';
    /**
     * t = 0 of the records on the host's monotonic clock (process.hrtime, CLOCK_MONOTONIC on
     * Linux), in ns as a decimal string: aligns records with other monotonic timestamps taken on
     * the same host, such as a server's own log. Null for virtual time and older results.
     */
    monotonic_origin_ns: string | null;
  };
  target: {
    base_url: string | null;
    endpoint: string;
    model: string;
    simulated: boolean;
    simulator: Record<string, unknown> | null;
    stream: boolean;
  };
  load: Record<string, unknown>;
  workload: Record<string, unknown>;
  metrics: RunMetrics;
  /** Present when the workload labels tasks: the same figures per task. */
  by_task: Record<string, RunMetrics> | null;
  /** Multi-turn runs: the first turn of each conversation vs. the later ones (over the run's window). */
  by_turn: { first_turn: RunMetrics; later_turns: RunMetrics } | null;
  validity: RunValidity | null;
  /** Cost figures when a price was given (--gpu-hour-cost or --prices); docs/cost.md. */
  cost: CostFigures | null;
  /** `--slo` / `slos:` results, one per SLO in the order given; null when none was given. */
  slos: ObjectiveResult[] | null;
  client: Record<string, unknown>;
  /** The server's own metrics over the run (docs/observe.md); null when not observed. */
  server?: ServerObservation | null;
  /** --cold-start (docs/observe.md); null otherwise. */
  cold_start?: ColdStartFigures | null;
  /** Answer-quality figures (docs/quality.md §Figures); null when no request carried a check. Absent in results written before it. */
  quality?: QualityFigures | null;
}
