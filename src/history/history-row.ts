/**
 * One row of the history's `runs` table, built from a run directory's spec.json and
 * result.json alone — so any saved run can be (re)indexed, and the row says nothing the run
 * directory does not. Column meanings: docs/history.md.
 */
import { readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { redactUrl } from '../util/redact.js';
import { specHash } from '../analysis/comparable-spec.js';
import { readRunBundle } from '../store/run-bundle.js';
import { environmentOf, fingerprintObject } from '../analysis/environment.js';

/** A run's row; numbers that are undefined for the run are null, never NaN. */
export interface HistoryRow {
  run_id: string;
  kind: 'run' | 'sweep';
  dir: string;
  name: string;
  started_at: string;
  ended_at: string | null;
  driver: string;
  interrupted: boolean;
  spec_hash: string;
  model: string | null;
  target: string;
  endpoint: string | null;
  simulated: boolean;
  load_shape: string;
  request_rate: number | null;
  concurrency: number | null;
  max_concurrency: number | null;
  num_prompts: number | null;
  duration_s: number | null;
  requests: number | null;
  ok: number | null;
  failed: number | null;
  failure_rate: number | null;
  request_throughput: number | null;
  output_throughput: number | null;
  ttft_p50_ms: number | null;
  ttft_p99_ms: number | null;
  tpot_p50_ms: number | null;
  tpot_p99_ms: number | null;
  itl_p50_ms: number | null;
  itl_p99_ms: number | null;
  e2el_p50_ms: number | null;
  e2el_p99_ms: number | null;
  goodput_request_per_s: number | null;
  goodput_attained: number | null;
  valid: boolean | null;
  validity_reasons: string[];
  slo_pass: boolean | null;
  /** The result's SLO verdicts as JSON text, when the run had any. */
  slo: string | null;
  /** result.json's `metrics` object as JSON text (every figure, for queries beyond the columns). */
  metrics: string | null;
  result_schema: string | null;
  infermeter_version: string | null;
  // Answer quality (result.json `quality`, docs/quality.md); NULL for runs without answer checks.
  accuracy: number | null;
  accuracy_ci_low: number | null;
  accuracy_ci_high: number | null;
  hallucination_rate: number | null;
  format_compliance: number | null;
  code_pass_rate: number | null;
  citation_correctness: number | null;
  refusal_rate: number | null;
  over_refusal_rate: number | null;
  successful_per_s: number | null;
  cost_per_success: number | null;
  /** result.json's whole `quality` object as JSON text. */
  quality: string | null;
  // The environment fingerprint (result.json `environment`, docs/result-schema.md); NULL for results without one.
  engine: string | null;
  engine_version: string | null;
  gpu_model: string | null;
  gpu_count: number | null;
  /** Every fingerprint field, flattened (field → value, analysis/environment.ts), as JSON text: what `history --where` reads. */
  fingerprint: string | null;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** "open poisson 10 req/s", "open inf, max 32 in flight", "closed 32", "trace replay". */
export function describeLoadShape(load: Obj): string {
  const mode = str(load.mode) ?? (load.concurrency ? 'closed' : 'open');
  if (mode === 'closed') return `closed ${num(load.concurrency) ?? '?'}`;
  if (mode === 'trace') return 'trace replay';
  const rate = num(load.request_rate);
  const arrival = str(load.arrival) ?? 'poisson';
  let shape = rate === null ? 'open inf' : `open ${arrival} ${rate} req/s`;
  const cap = num(load.max_concurrency);
  if (cap !== null) shape += `, max ${cap} in flight`;
  return shape;
}

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8')) as unknown;
}

/** The p50/p99 of a latency distribution of result.metrics.latency. */
function pcts(latency: Obj, key: string): [number | null, number | null] {
  const d = obj(latency[key]);
  return [num(d.p50), num(d.p99)];
}

/**
 * The SLO verdicts: result.json `slos` is one result per `--slo`, each with `pass`; the run
 * passes when every one does. (A single object with `pass`/`passed` is read the same way.)
 */
function sloOf(result: Obj): { pass: boolean | null; json: string | null } {
  const slo = result.slos ?? result.slo ?? null;
  if (slo === null || slo === undefined) return { pass: null, json: null };
  const flag = (v: unknown): boolean | null => {
    const o = obj(v);
    return typeof o.pass === 'boolean' ? o.pass : typeof o.passed === 'boolean' ? o.passed : null;
  };
  const flags = Array.isArray(slo) ? slo.map(flag) : [flag(slo)];
  const pass = flags.length === 0 || flags.some((f) => f === null) ? null : flags.every(Boolean);
  return { pass, json: JSON.stringify(slo) };
}

/** The quality columns from result.json `quality` (all NULL when the run carried no checks). */
function qualityColumns(result: Obj): Pick<
  HistoryRow,
  | 'accuracy'
  | 'accuracy_ci_low'
  | 'accuracy_ci_high'
  | 'hallucination_rate'
  | 'format_compliance'
  | 'code_pass_rate'
  | 'citation_correctness'
  | 'refusal_rate'
  | 'over_refusal_rate'
  | 'successful_per_s'
  | 'cost_per_success'
  | 'quality'
> {
  const q = result.quality === null || result.quality === undefined ? null : obj(result.quality);
  const value = (v: unknown): number | null => num(obj(v).value);
  const acc = obj(q?.accuracy);
  const ci = Array.isArray(acc.ci95) ? acc.ci95 : [];
  const success = obj(q?.success);
  return {
    accuracy: num(acc.value),
    accuracy_ci_low: num(ci[0]),
    accuracy_ci_high: num(ci[1]),
    hallucination_rate: value(obj(q?.hallucination).rate),
    format_compliance: value(q?.format_compliance),
    code_pass_rate: value(q?.code_pass),
    citation_correctness: value(q?.citation_correctness),
    refusal_rate: value(obj(q?.refusal).rate),
    over_refusal_rate: value(obj(q?.refusal).over_refusal),
    successful_per_s: num(success.per_s),
    cost_per_success: num(success.cost_per_success),
    quality: q === null ? null : JSON.stringify(q),
  };
}

/**
 * The row of a run from its result object and spec (spec.json's content; null when the run has
 * none): read back from its directory, or held in memory by the run that just finished.
 */
export function rowOfRun(resultsDir: string, runDir: string, result: Obj, spec: unknown): HistoryRow {
  return rowFromResult(resultsDir, runDir, result, runSpec(result, spec));
}

/** The run's spec.json content, or (an old or hand-made run without one) what its result says: its hash then covers only the result's load. */
export function runSpec(result: Obj, spec: unknown): unknown {
  return spec ?? { load: result.load, workload: result.workload, target: { endpoint: obj(result.target).endpoint, model: obj(result.target).model } };
}

/** Builds the row of the run in `runDir` (a folder under `resultsDir`). Throws when result.json is missing, unreadable or of a schema this build does not read. */
export function rowFromRunDir(resultsDir: string, runDir: string): HistoryRow {
  const run = readRunBundle<Obj>(runDir, { records: 'skip' });
  return rowOfRun(resultsDir, runDir, run.result, run.spec);
}

/** The sweep's spec.json, or (an old or hand-made sweep without one) what its sweep.json `sweep` says of the settings. */
export function sweepSpec(sweepDir: string, sweep: Obj): unknown {
  try {
    return readJson(join(sweepDir, 'spec.json'));
  } catch {
    return { load: sweep.load, workload: sweep.workload, target: { endpoint: obj(sweep.target).endpoint, model: obj(sweep.target).model } };
  }
}

/**
 * One row per stage of the sweep in `sweepDir`, kind `sweep`, run_id `<sweep id>.stage<i>`. Each
 * stage reads as a run at its own load: its metrics, validity and SLO verdicts, and a spec hash
 * over the sweep's spec plus the stage's load, so `trend` follows one stage across sweeps.
 */
export function rowsFromSweepDir(resultsDir: string, sweepDir: string): HistoryRow[] {
  const sweep = obj(readJson(join(sweepDir, 'sweep.json')));
  const spec = sweepSpec(sweepDir, sweep);
  const info = obj(sweep.sweep);
  const id = str(info.id) ?? basename(sweepDir);
  const stages = Array.isArray(sweep.stages) ? sweep.stages.map(obj) : [];
  return stages.map((stage) => {
    const load = obj(stage.load);
    const rate = load.kind === 'rate' ? (load.rate === 'inf' ? null : num(load.rate)) : null;
    const concurrency = load.kind === 'concurrency' ? num(load.concurrency) : null;
    const stageLoad = { ...obj(sweep.load), mode: concurrency !== null ? 'closed' : 'open', request_rate: rate, concurrency };
    const asResult = {
      schema: sweep.schema,
      infermeter_version: sweep.infermeter_version,
      run: { id: `${id}.stage${String(stage.index)}`, name: str(info.name) ?? id, started_at: info.started_at, ended_at: info.ended_at, driver: info.driver, interrupted: info.interrupted },
      target: sweep.target,
      load: stageLoad,
      metrics: stage.metrics,
      validity: stage.validity,
      slos: stage.slos,
      environment: sweep.environment,
    };
    const stageSpec = { ...obj(spec), load: { ...obj(obj(spec).load), stage: load } };
    return rowFromResult(resultsDir, sweepDir, asResult, stageSpec);
  });
}

function rowFromResult(resultsDir: string, runDir: string, result: Obj, spec: unknown): HistoryRow {
  const run = obj(result.run);
  const target = obj(result.target);
  const load = obj(result.load);
  const metrics = obj(result.metrics);
  const req = obj(metrics.requests);
  const thr = obj(metrics.throughput);
  const lat = obj(metrics.latency);
  const good = obj(metrics.goodput);
  const validity = result.validity === null || result.validity === undefined ? null : obj(result.validity);
  const simulated = target.simulated === true;
  const driver = str(run.driver) ?? 'http';
  const [ttft50, ttft99] = pcts(lat, 'ttft_ms');
  const [tpot50, tpot99] = pcts(lat, 'tpot_ms');
  const [itl50, itl99] = pcts(lat, 'itl_ms');
  const [e2el50, e2el99] = pcts(lat, 'e2el_ms');
  const slo = sloOf(result);
  const simInfo = obj(target.simulator);
  const hardware = str(simInfo.hardware);
  const schema = str(result.schema);
  return {
    run_id: str(run.id) ?? basename(runDir),
    kind: schema?.startsWith('infermeter.sweep') ? 'sweep' : 'run',
    dir: relative(resultsDir, runDir) || '.',
    name: str(run.name) ?? basename(runDir),
    started_at: str(run.started_at) ?? new Date(0).toISOString(),
    ended_at: str(run.ended_at),
    driver,
    interrupted: run.interrupted === true,
    spec_hash: specHash(spec, { simulated, driver }),
    model: str(target.model),
    target: simulated ? `simulator${hardware ? ` (${hardware})` : ''}` : (typeof target.base_url === 'string' ? redactUrl(target.base_url) : 'unknown'),
    endpoint: str(target.endpoint),
    simulated,
    load_shape: describeLoadShape(load),
    request_rate: num(load.request_rate),
    concurrency: num(load.concurrency),
    max_concurrency: num(load.max_concurrency),
    num_prompts: num(load.num_prompts),
    duration_s: num(metrics.duration_s),
    requests: num(req.total),
    ok: num(req.ok),
    failed: num(req.failed),
    failure_rate: num(req.failure_rate),
    request_throughput: num(thr.request_per_s),
    output_throughput: num(thr.output_tokens_per_s),
    ttft_p50_ms: ttft50,
    ttft_p99_ms: ttft99,
    tpot_p50_ms: tpot50,
    tpot_p99_ms: tpot99,
    itl_p50_ms: itl50,
    itl_p99_ms: itl99,
    e2el_p50_ms: e2el50,
    e2el_p99_ms: e2el99,
    goodput_request_per_s: num(good.request_per_s),
    goodput_attained: num(good.attained),
    valid: validity === null ? null : validity.valid === true,
    validity_reasons: validity === null ? [] : (Array.isArray(validity.reasons) ? validity.reasons.filter((r): r is string => typeof r === 'string') : []),
    slo_pass: slo.pass,
    slo: slo.json,
    metrics: result.metrics === undefined ? null : JSON.stringify(result.metrics),
    result_schema: schema,
    infermeter_version: str(result.infermeter_version),
    ...qualityColumns(result),
    ...environmentColumns(result),
  };
}

/** The fingerprint columns from result.json `environment` (all NULL without one). */
function environmentColumns(result: Obj): Pick<HistoryRow, 'engine' | 'engine_version' | 'gpu_model' | 'gpu_count' | 'fingerprint'> {
  const env = environmentOf(result);
  if (!env) return { engine: null, engine_version: null, gpu_model: null, gpu_count: null, fingerprint: null };
  return { engine: env.server.engine, engine_version: env.server.engine_version, gpu_model: env.server.gpu_model, gpu_count: env.server.gpu_count, fingerprint: JSON.stringify(fingerprintObject(env)) };
}
