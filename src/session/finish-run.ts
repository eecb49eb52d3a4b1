/**
 * After the load: records → metrics → verdict → the result object, then result.json, report.html
 * and the vLLM JSON. Shared by `run`, `sim run`, distributed runs and `analyze`, so every driver
 * builds its result the same way. Prints nothing: the CLI shows the result (cli/print-run.ts).
 */
import type { TraceFigures } from '../observe/otlp/trace-join.js';
import type { ClientHealth, IncompleteWorker, RunValidity } from '../analysis/run-validity.js';
import { judgeRun } from '../analysis/verdict.js';
import { computeMetrics, computeMetricsByTask, computeOver, kept, measureRecords, measuredWindow } from '../metrics/index.js';
import type { RequestRecord } from '../record/record.js';
import type { ServerObservation } from '../observe/observation.js';
import type { RunEnvironment } from '../analysis/environment.js';
import type { ColdStartFigures } from '../report/result-json.js';
import type { RunResult } from '../report/result-json.js';
import { RESULT_SCHEMA } from '../store/result-schema.js';
import { toVllmJson } from '../report/vllm-json.js';
import type { RunDir } from '../store/run-dir.js';
import { writeJsonFile } from '../store/run-dir.js';
import { fileFaultCode, resultFaultLine } from '../store/records-file.js';
import { infermeterVersion } from './version.js';
import type { GoodputSlo, Objective } from '../config/slo.js';
import { Redactor } from '../util/redact.js';
import { computeCost, requestTimeSplit, type CostInputs, type CostSplit } from '../metrics/cost.js';
import { computeQuality } from '../metrics/quality.js';
import { allObjectivesPass, evaluateObjectives } from '../metrics/index.js';
import { exitCodeFor, type ExitCode, type Outcome } from '../errors/exit-codes.js';
import { DEFAULT_MAX_FAILURE_RATE, type ValiditySpec } from '../config/schema.js';
import type { InputUnit } from '../record/input-unit.js';

const DEFAULT_VALIDITY: ValiditySpec = { max_failure_rate: DEFAULT_MAX_FAILURE_RATE, allow_invalid: false, capacity_check: true };

export interface FinishInput {
  spec: {
    goodput: GoodputSlo[];
    /** SLOs (`--slo`): evaluated over windows; any failing one makes the exit code 3. */
    slos?: Objective[];
    /** Default: --max-failure-rate's default, invalid runs fail the command. */
    validity?: ValiditySpec;
    output: {
      json: boolean;
      vllm_json: string | null;
      /** Write report.html into the run directory (default true). */
      report?: boolean;
      percentile_metrics?: Array<'ttft' | 'tpot' | 'itl' | 'e2el'> | null;
      metric_percentiles?: number[] | null;
      label?: string | null;
    };
  };
  dir: RunDir | null;
  records: RequestRecord[];
  /** What batched requests' inputs are (run-spec.ts specInputUnit); default `inputs`. */
  inputUnit?: InputUnit;
  run: Omit<RunResult['run'], 'id'>;
  target: RunResult['target'];
  load: Record<string, unknown>;
  workload: Record<string, unknown>;
  /** Null when re-analysing saved records (the client's health was not observed). */
  health: ClientHealth | null;
  client: Record<string, unknown>;
  ignoreEos: boolean;
  clientTokenizer: 'estimate' | 'tokenizer';
  /** The server's metrics over the run (run against a server; null when not observed). */
  server?: ServerObservation | null;
  /** --cold-start figures. */
  coldStart?: ColdStartFigures | null;
  /** --otlp-receiver: spans joined to the records. */
  traces?: TraceFigures | null;
  /** Tokens the server adds to each prompt (pre-flight's calibration), for the served-vs-asked check. */
  promptOverheadTokens?: number | null;
  /** Tokens the chat template adds for each further message of a request (pre-flight's calibration). */
  promptPerMessageTokens?: number | null;
  /** --tokenizer as given (vLLM JSON's tokenizer_id); null or absent when prompts were not tokenized. */
  tokenizerId?: string | null;
  /** A validity verdict carried over from the original run (analyze): its client findings are kept. */
  priorValidity?: Partial<RunValidity> | null;
  /** Removes the run's secrets from everything written or printed. */
  redactor?: Redactor;
  /** Price and GPU count for cost figures; null/absent: no cost figures. */
  cost?: CostInputs | null;
  /** Distributed runs: workers whose share did not all arrive (partial_result findings). */
  incomplete?: readonly IncompleteWorker[];
  /** How GPU time splits between input and output tokens; absent: the request-time rule. */
  costSplit?: CostSplit | null;
  /** The run's environment fingerprint (session/environment-capture.ts); null when not captured. */
  environment?: RunEnvironment | null;
}

export function buildResult(input: FinishInput): RunResult {
  const slos = input.spec.goodput;
  // Records arrive in completion order (and from several workers); in index order the
  // floating-point sums, hence every figure, are the same however the run was split.
  // Records read back are in id order already (one pass says so): a stable sort would keep them as they are.
  const records = inIdOrder(input.records) ? input.records : [...input.records].sort((a, b) => a.id - b.id);
  // --metric-percentiles: computed exactly in every Distribution (result.json, summary, vLLM JSON).
  const percentiles = input.spec.output.metric_percentiles ?? [];
  const inputUnit = input.inputUnit ?? 'inputs';
  const opts = { slos, inputUnit, ...(percentiles.length > 0 ? { percentiles } : {}) };
  const metrics = computeMetrics(records, opts);
  const tasks = new Set<string | null>();
  for (const r of records) tasks.add(r.task);
  const byTask = tasks.size > 1 || (tasks.size === 1 && !tasks.has(null)) ? computeMetricsByTask(records, opts) : null;
  let byTurn: RunResult['by_turn'] = null;
  if (records.some((r) => r.turn !== null)) {
    const measure = measureRecords(records);
    const window = measuredWindow(measure);
    byTurn = {
      first_turn: computeOver(kept(measure, (r) => (r.turn ?? 0) === 0), window, opts),
      later_turns: computeOver(kept(measure, (r) => (r.turn ?? 0) > 0), window, opts),
    };
  }
  const validity = judgeRun({
    records,
    requests: metrics.requests,
    health: input.health,
    prior: input.priorValidity ?? null,
    ignoreEos: input.ignoreEos,
    clientTokenizer: input.clientTokenizer,
    promptOverheadTokens: input.promptOverheadTokens ?? null,
    promptPerMessageTokens: input.promptPerMessageTokens ?? null,
    maxFailureRate: (input.spec.validity ?? DEFAULT_VALIDITY).max_failure_rate,
    interrupted: input.run.interrupted,
    ...(input.incomplete ? { incomplete: input.incomplete } : {}),
  });
  const measure = measureRecords(records);
  const cost = input.cost ? computeCost(metrics, measure, input.cost, input.costSplit ?? requestTimeSplit(measure)) : null;
  const quality = computeQuality(records, { slos, durationS: metrics.duration_s, totalCost: cost?.total_cost ?? null });
  return {
    schema: RESULT_SCHEMA,
    infermeter_version: infermeterVersion(),
    run: { id: input.dir?.id ?? null, ...input.run },
    target: input.target,
    load: input.load,
    workload: input.workload,
    metrics,
    by_task: byTask,
    by_turn: byTurn,
    validity,
    cost,
    slos: input.spec.slos && input.spec.slos.length > 0 ? evaluateObjectives(records, input.spec.slos, { goodput: slos }) : null,
    client: input.client,
    server: input.server ?? null,
    cold_start: input.coldStart ?? null,
    ...(input.traces ? { traces: input.traces } : {}),
    quality,
    environment: input.environment ?? null,
  };
}

/** Whether every record's id is ≥ the one before (false for a NaN id: the sort decides then). */
function inIdOrder(records: readonly RequestRecord[]): boolean {
  let prev = -Infinity;
  for (const r of records) {
    const id = r.id;
    if (!(id >= prev)) return false;
    prev = id;
  }
  return true;
}

/** A run's result and where it was written. */
export interface CompletedRun {
  /** The result object (result.json's content, secrets removed). */
  result: RunResult;
  /** The run's records in completion order. */
  records: RequestRecord[];
  dir: RunDir | null;
  /** report.html, when written. */
  reportPath: string | null;
  /** What --allow-invalid said: an invalid run is then accepted. */
  allowInvalid: boolean;
  /** result.json could not be written (full or read-only folder): the line to print; the caller exits DISK_FAULT. */
  diskFault?: string;
  /** --percentile-metrics (null: not given, all four): the metrics the summary lists asked-for percentiles of. */
  percentileMetrics?: ReadonlyArray<'ttft' | 'tpot' | 'itl' | 'e2el'> | null;
}

/** Builds the result and writes result.json, report.html and the vLLM JSON (as asked). Prints nothing. */
/** The exit code of a run: the stop signal (when a signal stopped a live run), validity, then its SLOs. */
export function runExitCode(result: RunResult, allowInvalid: boolean, signal: AbortSignal | undefined): ExitCode {
  return exitCodeFor(runOutcome(result, allowInvalid, signal));
}

/** What a run ended with, for the exit-code mapping (and for combining repeated runs'). */
export function runOutcome(result: RunResult, allowInvalid: boolean, signal: AbortSignal | undefined): Outcome {
  return {
    stoppedBy: result.run.interrupted && signal?.aborted ? { reason: signal.reason } : null,
    valid: result.validity ? result.validity.valid : null,
    allowInvalid,
    gatesPass: result.slos ? allObjectivesPass(result.slos) : null,
  };
}

export async function completeRun(input: FinishInput): Promise<CompletedRun> {
  const built = buildResult(input);
  // Without the run's secrets (analyze of an older run) URL credentials are still removed.
  const redactor = input.redactor ?? new Redactor([]);
  const result = redactor.scrubDeep(built);
  let diskFault: string | undefined;
  try {
    input.dir?.writeJson('result.json', result);
  } catch (err) {
    const code = fileFaultCode(err);
    if (code === null || !input.dir) throw err;
    diskFault = resultFaultLine(code, input.dir.path, input.records.length);
  }
  const dir = diskFault ? null : input.dir;
  // The HTML report's code (its charts alone are ~0.5 MB of JavaScript) loads only when a report
  // is written: analyze, which writes none, does not compile it.
  const reportPath =
    dir && input.spec.output.report !== false ? await (await import('./write-report.js')).writeRunReport(dir.path, input.records, result) : null;
  const vllmPath = input.spec.output.vllm_json;
  if (vllmPath) {
    const load = input.load;
    const rate = load.request_rate;
    writeJsonFile(
      vllmPath,
      toVllmJson(result.metrics, {
        date: result.run.started_at,
        backend: input.target.endpoint.includes('chat') ? 'openai-chat' : 'openai',
        model_id: input.target.model,
        tokenizer_id: input.tokenizerId ?? null,
        num_prompts: typeof load.num_prompts === 'number' ? load.num_prompts : input.records.length,
        request_rate: typeof rate === 'number' ? rate : 'inf',
        burstiness: typeof load.burstiness === 'number' ? load.burstiness : 1,
        max_concurrency: typeof load.max_concurrency === 'number' ? load.max_concurrency : typeof load.concurrency === 'number' ? load.concurrency : null,
        label: input.spec.output.label ?? null,
        ...(input.spec.output.percentile_metrics ? { percentile_metrics: input.spec.output.percentile_metrics } : {}),
        ...(input.spec.output.metric_percentiles ? { metric_percentiles: input.spec.output.metric_percentiles } : {}),
      }),
      '--vllm-json',
    );
  }
  return {
    result,
    records: input.records,
    dir,
    reportPath,
    allowInvalid: (input.spec.validity ?? DEFAULT_VALIDITY).allow_invalid,
    percentileMetrics: input.spec.output.percentile_metrics ?? null,
    ...(diskFault ? { diskFault } : {}),
  };
}
