/**
 * `analyze` as a session: every figure of a saved run recomputed from its records alone, with new
 * SLOs, goodput, cost or validity options if given; the original run's context is taken from
 * result.json, else spec.json. Returns the result object; prints nothing.
 */
import { issueText } from '../config/zod-issue.js';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { UserError } from '../errors/user-error.js';
import { readRecordColumns } from '../store/records-reader.js';
import { readSavedRun, savedLoad, savedTarget, type SavedRun } from './saved-run.js';
import { completeRun, type CompletedRun } from './finish-run.js';
import { environmentOf } from '../analysis/environment.js';
import { GoodputSchema, OutputSpecSchema, ValiditySpecSchema } from '../config/schema.js';
import { validateSpec } from '../config/load-spec.js';
import { CostSpecSchema } from '../config/prices.js';
import { resolveCostInputs } from './cost-inputs.js';
import type { CostInputs, CostSplit } from '../metrics/cost.js';
import { SloListSchema, specInputUnit } from './spec-parts.js';
import { checkObjectivesUsable } from '../config/slo-check.js';
import type { SessionContext } from './context.js';
import { SPANS_FILE } from '../store/spans-file-name.js';

/** records.jsonl from this size up gets progress lines (a few seconds of reading and computing). */
const ANALYZE_PROGRESS_BYTES = 16 * 2 ** 20;

const seconds = (t0: number) => `${((performance.now() - t0) / 1000).toFixed(1)} s`;

export interface AnalyzeInput {
  /** What to judge the records by, in the run spec's shape: `goodput`, `slos`, `cost`, `validity`, `output` (each optional: absent, the original run's apply). */
  spec: Record<string, unknown>;
  /** Spec paths given as flags (for error messages naming the flag); absent for a programmatic call. */
  flagPaths?: Map<string, string>;
  /** Also write the vLLM-compatible JSON here. */
  vllmJson?: string | null;
  /** Join these spans (OTLP/JSON lines) instead of the run's spans.jsonl. */
  spansFile?: string | null;
}

/** A saved run directory or records.jsonl, re-judged. @throws UserError for a path that holds no run. */
export async function analyzeRun(path: string, input: AnalyzeInput, ctx: SessionContext = {}): Promise<CompletedRun> {
  const log = (line: string) => ctx.log?.(line);
  if (!existsSync(path)) throw new UserError(`${path}: no such run directory or records file`);
  const isDir = statSync(path).isDirectory();
  const recordsPath = isDir ? join(path, 'records.jsonl') : path;
  if (!existsSync(recordsPath)) throw new UserError(`${path}: no records.jsonl in this directory`);
  // Reading and recomputing a long run takes seconds: say so before, and how long it took after.
  const size = statSync(recordsPath).size;
  const slow = size >= ANALYZE_PROGRESS_BYTES;
  const t0 = performance.now();
  if (slow) log(`analyze: reading ${recordsPath} (${(size / 2 ** 20).toFixed(0)} MiB)…`);
  if (input.spansFile && !existsSync(input.spansFile)) throw new UserError(`--spans ${input.spansFile}: no such file`);
  const { records, truncatedTail } = readRecordColumns(recordsPath, { warn: log });
  if (slow) log(`analyze: ${records.length.toLocaleString('en-US')} records read in ${seconds(t0)}; computing figures…`);
  if (truncatedTail) log(`note: ${recordsPath}: last line was incomplete (killed run?) and was skipped`);
  if (records.length === 0) throw new UserError(`${recordsPath}: no records`);

  const saved = readSavedRun(isDir ? path : join(recordsPath, '..'), log);
  const prior = saved.result;
  // The same schema as a run spec's, so goodput and the vLLM JSON options read as they do for `run`.
  const given = validateSpec(
    z.object({ goodput: GoodputSchema, slos: SloListSchema, output: OutputSpecSchema.prefault({}), cost: CostSpecSchema.prefault({}), validity: ValiditySpecSchema.prefault({}) }),
    input.spec,
    { flagPaths: input.flagPaths ?? new Map(), configPath: null },
  );
  // Without --metric-percentiles / --percentile-metrics the run's own lists apply (spec.json, else
  // the percentiles result.json holds), so analyze shows what the run showed.
  const output = { ...given.output, ...savedPercentileLists(input.spec, saved) };
  // Without --goodput the original run's SLOs apply (the schema's default [] would drop them).
  const slos = input.spec.goodput !== undefined ? given.goodput! : (prior?.metrics?.goodput?.slos ?? saved.spec?.goodput ?? []);
  const load = savedLoad(saved) ?? { num_prompts: records.length };
  // Without cost flags the original run's price and GPU count apply; the simulator's own
  // prefill/decode split is kept (records alone cannot give it).
  const priorCost = prior?.cost ?? null;
  const sim = prior?.target?.simulated ? (prior.target.simulator ?? null) : null;
  const cost: CostInputs | null =
    input.spec.cost !== undefined
      ? resolveCostInputs(given.cost, { gpus: priorCost?.gpus ?? null, gpuType: priorCost?.gpu_type ?? (typeof sim?.hardware === 'string' ? sim.hardware : null) })
      : priorCost
        ? { gpu_hour_cost: priorCost.gpu_hour_cost, gpus: priorCost.gpus, currency: priorCost.currency, gpu_type: priorCost.gpu_type, price_source: priorCost.price_source }
        : null;
  // Without --slo the original run's SLOs are judged again (from their canonical text).
  let objectives = given.slos;
  if (input.spec.slos === undefined && prior?.slos) {
    const parsed = SloListSchema.safeParse(prior.slos.map((r) => r.slo));
    if (!parsed.success) throw new UserError(`${join(isDir ? path : join(recordsPath, "..") , "result.json")}: slos.${issueText(parsed.error.issues[0]!)}`);
    objectives = parsed.data;
  }
  checkObjectivesUsable(objectives, slos);
  const now = new Date().toISOString();
  // The served-vs-asked prompt-length check allows what the server adds to each prompt, as the run's pre-flight measured it.
  const calibration = savedPromptCalibration(prior?.client);
  // The run's spans joined again (or a collector's file): the same join as the live run's.
  const spansPath = input.spansFile ?? join(isDir ? path : join(recordsPath, '..'), SPANS_FILE);
  let traces = prior?.traces ?? null;
  if (existsSync(spansPath)) {
    // Loaded only for a run with spans: the OTLP decoding loads protobufjs (~0.1 s of start-up).
    const [{ readSpansFile }, { runTraceIds, traceFigures }] = await Promise.all([import('../store/spans-file.js'), import('./collect-traces.js')]);
    const read = readSpansFile(spansPath, { keep: runTraceIds(records), warn: log });
    traces = traceFigures(records, read.spans, { refused: read.malformed, dropped: read.dropped });
  }
  const done = await completeRun({
    spec: { goodput: slos, slos: objectives, validity: given.validity, output: { ...output, json: false, vllm_json: input.vllmJson ?? null } },
    // The run's own unit; before result.json had it, the saved spec's endpoint kind says.
    inputUnit: prior?.metrics?.batch?.input_unit ?? (typeof saved.spec?.target?.endpoint === 'string' ? specInputUnit({ ...saved.spec.target, endpoint: saved.spec.target.endpoint }) : 'inputs'),
    dir: null,
    records,
    run: {
      name: prior?.run?.name ?? saved.spec?.name ?? 'analyze',
      started_at: prior?.run?.started_at ?? now,
      ended_at: prior?.run?.ended_at ?? now,
      interrupted: prior?.run?.interrupted ?? false,
      driver: prior?.run?.driver ?? 'http',
      monotonic_origin_ns: prior?.run?.monotonic_origin_ns ?? null,
    },
    target: savedTarget(saved) ?? { base_url: null, endpoint: '/v1/completions', model: 'unknown', simulated: false, simulator: null, stream: true },
    load,
    workload: prior?.workload ?? {},
    health: null,
    priorValidity: prior?.validity ?? null,
    client: prior?.client ?? {},
    // Records alone cannot say what was measured: the original run's fingerprint is kept.
    environment: environmentOf(prior),
    ignoreEos: load.ignore_eos === true,
    clientTokenizer: saved.spec?.workload?.tokenizer ? 'tokenizer' : 'estimate',
    promptOverheadTokens: calibration.overhead,
    promptPerMessageTokens: calibration.perMessage,
    cost,
    costSplit: priorCost?.split.method === 'simulator_step_time' ? priorCost.split : simulatorSplit(sim),
    tokenizerId: saved.spec?.workload?.tokenizer ?? null,
    traces,
  });
  if (slow) log(`analyze: done in ${seconds(t0)}`);
  return done;
}

/** The saved run's --metric-percentiles and --percentile-metrics, for those not given to analyze (each checked as the flag is). */
function savedPercentileLists(spec: Record<string, unknown>, saved: SavedRun): { metric_percentiles?: number[]; percentile_metrics?: Array<'ttft' | 'tpot' | 'itl' | 'e2el'> } {
  const given = (spec.output ?? {}) as Record<string, unknown>;
  const out: { metric_percentiles?: number[]; percentile_metrics?: Array<'ttft' | 'tpot' | 'itl' | 'e2el'> } = {};
  const asked = saved.result?.metrics?.latency?.ttft_ms?.percentiles;
  const fromResult = asked ? Object.keys(asked).map(Number) : null;
  const savedList = saved.spec?.output?.metric_percentiles ?? fromResult;
  if (given.metric_percentiles === undefined && savedList) {
    const r = OutputSpecSchema.shape.metric_percentiles.safeParse(savedList);
    if (r.success && r.data) out.metric_percentiles = r.data;
  }
  const savedMetrics = saved.spec?.output?.percentile_metrics;
  if (given.percentile_metrics === undefined && savedMetrics) {
    const r = OutputSpecSchema.shape.percentile_metrics.safeParse(savedMetrics);
    if (r.success && r.data) out.percentile_metrics = r.data;
  }
  return out;
}

/** The prefill/decode share a virtual-time run recorded in its engine stats, if any. */
function simulatorSplit(sim: Record<string, unknown> | null): CostSplit | null {
  const stats = sim?.engine_stats as { prefill_ms?: unknown; decode_ms?: unknown } | undefined;
  const p = stats?.prefill_ms;
  const d = stats?.decode_ms;
  if (typeof p !== 'number' || typeof d !== 'number' || p + d <= 0) return null;
  return { method: 'simulator_step_time', input_share: p / (p + d) };
}

/** result.json `client.preflight.prompt_calibration`'s overheads (null when the run had none). */
function savedPromptCalibration(client: Record<string, unknown> | undefined): { overhead: number | null; perMessage: number | null } {
  const pf = client?.preflight;
  const cal = pf && typeof pf === 'object' ? (pf as { prompt_calibration?: unknown }).prompt_calibration : null;
  const o = cal && typeof cal === 'object' ? (cal as Record<string, unknown>) : {};
  const n = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return { overhead: n(o.overhead_tokens), perMessage: n(o.per_message_tokens) };
}
