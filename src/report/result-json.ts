/**
 * result.json: the versioned, documented result of a run (docs/result-schema.md).
 * Bump RESULT_SCHEMA (store/result-schema.ts) on any breaking change to its shape.
 */
import type { TraceFigures } from '../observe/otlp/trace-join.js';
import type { ObjectiveResult, RunMetrics } from '../metrics/index.js';
import type { RunValidity } from '../analysis/run-validity.js';
import type { CostFigures } from '../metrics/cost.js';
import type { ServerObservation } from '../observe/observation.js';
import type { ColdStartLatency } from '../metrics/cold-start.js';
import type { QualityFigures } from '../metrics/quality.js';
import type { RESULT_SCHEMA } from '../store/result-schema.js';
import type { RunEnvironment } from '../analysis/environment.js';

/** --cold-start: the health wait, the first response, and the first requests against the rest. */
export interface ColdStartFigures extends ColdStartLatency {
  time_to_healthy_ms: number;
  polls: number;
  path: string;
  time_to_first_response_ms: number | null;
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
  /** --otlp-receiver: the server's spans joined to the records (docs/observe.md §Traces); absent otherwise. */
  traces?: TraceFigures | null;
  /** Answer-quality figures (docs/quality.md §Figures); null when no request carried a check. Absent in results written before it. */
  quality?: QualityFigures | null;
  /**
   * What was measured and from where (docs/result-schema.md §environment): the server's model,
   * engine, settings and GPUs as far as it revealed them, and the client host. Null when not
   * captured (analyze of records without a result.json); absent before infermeter.result/3.
   */
  environment?: RunEnvironment | null;
}
