/**
 * `infermeter analyze RUN_DIR_OR_records.jsonl`: every figure recomputed from records alone,
 * with new SLOs if given; the original run's context is taken from result.json, else spec.json.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../errors/user-error.js';
import { readRecordsFile } from '../store/records-file.js';
import { readSavedRun, savedLoad, savedTarget } from '../session/saved-run.js';
import { completeRun } from '../session/finish-run.js';
import { printRun } from './print-run.js';
import type { CliIo } from './io.js';
import { z } from 'zod';
import { GoodputSchema, OutputSpecSchema, ValiditySpecSchema } from '../config/schema.js';
import { validateSpec } from '../config/load-spec.js';
import { COST_FLAGS, LOAD_FLAGS, specFromFlags, VALIDITY_FLAGS, VLLM_JSON_FLAGS } from './run-flags.js';
import { CostSpecSchema } from '../config/prices.js';
import { resolveCostInputs } from '../session/cost-inputs.js';
import type { CostInputs, CostSplit } from '../metrics/cost.js';
import { SloListSchema } from '../session/run-spec.js';
import { checkObjectivesUsable } from './slo-check.js';
import { analyzeSweep } from './analyze-sweep.js';
import { isSweepDir } from '../session/saved-sweep.js';

/** A sweep directory: its stages re-judged (--slo, --goodput), as analyze-sweep.ts says. */
function analyzeSavedSweep(path: string, opts: Record<string, unknown>, io: CliIo): number {
  const flags = specFromFlags(opts, LOAD_FLAGS.filter((f) => f.path[0] === 'goodput' || f.path[0] === 'slos'));
  const given = validateSpec(z.object({ goodput: GoodputSchema, slos: SloListSchema }), flags.spec, { flagPaths: flags.flagPaths, configPath: null });
  return analyzeSweep(path, opts, { given: flags.spec.slos === undefined ? null : given.slos, goodput: flags.spec.goodput === undefined ? null : given.goodput! }, io);
}

/** records.jsonl from this size up gets progress lines (a few seconds of reading and computing). */
const ANALYZE_PROGRESS_BYTES = 16 * 2 ** 20;

const seconds = (t0: number) => `${((performance.now() - t0) / 1000).toFixed(1)} s`;

export async function analyzeCommand(path: string, opts: Record<string, unknown>, io: CliIo): Promise<number> {
  if (!existsSync(path)) throw new UserError(`${path}: no such run directory or records file`);
  const isDir = statSync(path).isDirectory();
  if (isDir && isSweepDir(path)) return analyzeSavedSweep(path, opts, io);
  const recordsPath = isDir ? join(path, 'records.jsonl') : path;
  if (!existsSync(recordsPath)) throw new UserError(`${path}: no records.jsonl in this directory`);
  // Reading and recomputing a long run takes seconds: say so before, and how long it took after.
  const size = statSync(recordsPath).size;
  const slow = size >= ANALYZE_PROGRESS_BYTES;
  const t0 = performance.now();
  if (slow) io.stderr.write(`analyze: reading ${recordsPath} (${(size / 2 ** 20).toFixed(0)} MiB)…\n`);
  const { records, truncatedTail } = readRecordsFile(recordsPath);
  if (slow) io.stderr.write(`analyze: ${records.length.toLocaleString('en-US')} records read in ${seconds(t0)}; computing figures…\n`);
  if (truncatedTail) io.stderr.write(`note: ${recordsPath}: last line was incomplete (killed run?) and was skipped\n`);
  if (records.length === 0) throw new UserError(`${recordsPath}: no records`);

  const saved = readSavedRun(isDir ? path : join(recordsPath, '..'), (line) => io.stderr.write(`${line}\n`));
  const prior = saved.result;
  // The same schema as a run spec's, so --goodput and the vLLM JSON flags read as they do for `run`.
  const flags = specFromFlags(opts, [...LOAD_FLAGS.filter((f) => f.path[0] === 'goodput' || f.path[0] === 'slos'), ...VLLM_JSON_FLAGS, ...COST_FLAGS, ...VALIDITY_FLAGS]);
  const given = validateSpec(
    z.object({ goodput: GoodputSchema, slos: SloListSchema, output: OutputSpecSchema.prefault({}), cost: CostSpecSchema.prefault({}), validity: ValiditySpecSchema.prefault({}) }),
    flags.spec,
    { flagPaths: flags.flagPaths, configPath: null },
  );
  const output = given.output;
  // Without --goodput the original run's SLOs apply (the schema's default [] would drop them).
  const slos = flags.spec.goodput !== undefined ? given.goodput! : (prior?.metrics?.goodput?.slos ?? saved.spec?.goodput ?? []);
  const load = savedLoad(saved) ?? { num_prompts: records.length };
  // Without cost flags the original run's price and GPU count apply; the simulator's own
  // prefill/decode split is kept (records alone cannot give it).
  const priorCost = prior?.cost ?? null;
  const sim = prior?.target?.simulated ? (prior.target.simulator ?? null) : null;
  const cost: CostInputs | null =
    flags.spec.cost !== undefined
      ? resolveCostInputs(given.cost, { gpus: priorCost?.gpus ?? null, gpuType: priorCost?.gpu_type ?? (typeof sim?.hardware === 'string' ? sim.hardware : null) })
      : priorCost
        ? { gpu_hour_cost: priorCost.gpu_hour_cost, gpus: priorCost.gpus, currency: priorCost.currency, gpu_type: priorCost.gpu_type, price_source: priorCost.price_source }
        : null;
  // Without --slo the original run's SLOs are judged again (from their canonical text).
  let objectives = given.slos;
  if (flags.spec.slos === undefined && prior?.slos) {
    const parsed = SloListSchema.safeParse(prior.slos.map((r) => r.slo));
    if (!parsed.success) throw new UserError(`${join(isDir ? path : join(recordsPath, "..") , "result.json")}: slos: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    objectives = parsed.data;
  }
  checkObjectivesUsable(objectives, slos);
  const now = new Date().toISOString();
  // The served-vs-asked prompt-length check allows what the server adds to each prompt, as the run's pre-flight measured it.
  const calibration = savedPromptCalibration(prior?.client);
  const done = await completeRun({
    spec: { goodput: slos, slos: objectives, validity: given.validity, output: { ...output, json: opts.json === true, vllm_json: typeof opts.vllmJson === 'string' ? opts.vllmJson : null } },
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
    ignoreEos: load.ignore_eos === true,
    clientTokenizer: saved.spec?.workload?.tokenizer ? 'tokenizer' : 'estimate',
    promptOverheadTokens: calibration.overhead,
    promptPerMessageTokens: calibration.perMessage,
    cost,
    costSplit: priorCost?.split.method === 'simulator_step_time' ? priorCost.split : simulatorSplit(sim),
    tokenizerId: saved.spec?.workload?.tokenizer ?? null,
  });
  const code = printRun(done, io, { json: opts.json === true });
  if (slow) io.stderr.write(`analyze: done in ${seconds(t0)}\n`);
  return code;
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
