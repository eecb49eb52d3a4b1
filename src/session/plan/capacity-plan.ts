/**
 * The capacity plan (`infermeter plan`, the API's `plan`): from traffic and SLOs to replicas,
 * GPUs and monthly cost, with the arithmetic shown. Capacity comes from the simulator (a
 * virtual-time search per option: hardware × tensor-parallel size) or from saved runs of a real
 * server (`from`). Returns the plan report; prints nothing.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../../errors/user-error.js';
import { parseRate, UnitError } from '../../config/units.js';
import { parseCommandOptions, PlanFlagsSchema, type PlanFlags } from '../../config/command-options.js';
import { lookupPrice, readPriceTable, type PriceTable } from '../../config/prices.js';
import { capacityPlan } from '../../analysis/plan/capacity.js';
import { engineConfig, hardwareProfile, modelProfile, numGpuBlocks } from '../../sim/index.js';
import { simProfileEngineFields } from '../builtin-sim.js';
import { CLOSED_LOOP_SEARCH, ranked, type PlanOption, type PlanReport } from '../../report/plan-report.js';
import type { RunResult } from '../../report/result-json.js';
import { readRunBundle } from '../../store/run-bundle.js';
import { infeasibility, searchConcurrency, searchLength, searchRate, type ProbeSettings, type SimOption } from './sim-capacity.js';
import { runsCapacity, type RunsCapacity } from './runs-capacity.js';
import { makeSloJudge } from './slo-judge.js';
import type { SessionContext } from '../context.js';

/** `200rps`, `12000/m`; or the rate of a saved run or of a trace file. */
export function parseTraffic(text: string): { rps: number; source: string } {
  try {
    const r = parseRate(text);
    if (!Number.isFinite(r)) throw new UserError('--traffic: give a finite rate such as 200rps');
    return { rps: r, source: 'given' };
  } catch (err) {
    if (!(err instanceof UnitError) || !existsSync(text)) {
      if (err instanceof UserError) throw err;
      throw new UserError(`--traffic: expected a rate such as 200rps or 12000/m, a run directory or a trace file, got "${text}"`);
    }
  }
  if (statSync(text).isDirectory()) {
    if (!existsSync(join(text, 'result.json'))) throw new UserError(`--traffic ${text}: no result.json in this directory`);
    const res = readRunBundle<Partial<RunResult>>(text, { records: 'skip' }).result;
    const offered = res.load?.request_rate;
    if (typeof offered === 'number' && res.load?.mode === 'open') return { rps: offered, source: `${text}: its request rate` };
    const measured = res.metrics?.throughput?.request_per_s;
    if (typeof measured === 'number' && measured > 0) return { rps: measured, source: `${text}: its measured requests/s` };
    throw new UserError(`--traffic ${text}: the run has no request rate`);
  }
  // A trace: Mooncake JSONL (timestamp in ms) or Azure CSV (TIMESTAMP): count / span.
  const times = traceTimes(readFileSync(text, 'utf8'), text);
  if (times.length < 2) throw new UserError(`--traffic ${text}: a trace needs at least two timestamped requests`);
  const span = (Math.max(...times) - Math.min(...times)) / 1000;
  if (!(span > 0)) throw new UserError(`--traffic ${text}: every request has the same timestamp`);
  return { rps: (times.length - 1) / span, source: `${text}: ${times.length} requests over ${span.toFixed(1)} s` };
}

function traceTimes(text: string, path: string): number[] {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  if (lines[0]?.startsWith('{')) {
    return lines.map((l, i) => {
      try {
        const t = (JSON.parse(l) as { timestamp?: unknown }).timestamp;
        if (typeof t === 'number') return t;
      } catch {
        /* reported below */
      }
      throw new UserError(`--traffic ${path}:${i + 1}: expected a JSON line with a numeric timestamp (ms)`);
    });
  }
  return lines.slice(1).map((l, i) => {
    const raw = l.split(',')[0]!.trim();
    const t = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) * 1000 : Date.parse(`${raw.replace(' ', 'T')}Z`);
    if (!Number.isFinite(t)) throw new UserError(`--traffic ${path}:${i + 2}: unreadable TIMESTAMP "${raw}"`);
    return t;
  });
}

/** The smallest tensor-parallel size of 1, 2, 4, 8 whose memory holds the weights (else 1). */
function autoTp(hardware: string, model: string): number {
  const hw = hardwareProfile(hardware);
  const m = modelProfile(model);
  return [1, 2, 4, 8].find((tp) => numGpuBlocks(hw, m, engineConfig({ tensor_parallel: tp }, hw)) > 0) ?? 1;
}

/**
 * Where measured concurrency comes from, in words: a closed loop held that many users with the
 * SLOs met; an open loop only had that many in flight at its peak — it never tried to hold them.
 */
function concurrencySource(stage: RunsCapacity['max_concurrency_stage']): string | null {
  if (stage === null) return null;
  if (stage.loop === 'closed') return `a closed-loop stage at ${stage.load} met the SLOs`;
  return `the peak in flight of an open-loop stage at ${stage.load} that met the SLOs, not a closed loop held at it`;
}

/** Why a plan has no answer to give: a `from` run is invalid (exit 5 in the CLI; `allowInvalid` accepts it). */
export type PlanOutcome = { report: PlanReport; invalid: null } | { report: null; invalid: string };

/** The plan's options as the CLI's flags (camelCase) or the API's caller give them. */
export type PlanInput = Parameters<typeof PlanFlagsSchema.parse>[0];

export function planFlags(input: Record<string, unknown>): PlanFlags {
  return parseCommandOptions(PlanFlagsSchema, input);
}

export async function planCapacity(opts: PlanFlags, ctx: SessionContext = {}): Promise<PlanOutcome> {
  const t0 = performance.now();
  const traffic = parseTraffic(opts.traffic);
  if (opts.slo.length === 0) throw new UserError("--slo is required, e.g. --slo 'p95(ttft) < 1.5s' --slo 'p95(tpot) < 80ms'");
  const { judge, texts } = makeSloJudge(opts.slo, opts.goodput);
  const headroom = opts.headroom;
  const price = opts.gpuHourCost;
  const table: PriceTable | null = opts.prices !== null ? readPriceTable(opts.prices) : null;
  const priceOf = (gpu: string | null): number | null => {
    if (price !== null) return price;
    if (table === null) return null;
    if (gpu === null) throw new UserError('--prices with --from: add --gpu-type (the GPU model of the measured server)');
    return lookupPrice(table, gpu, opts.prices!);
  };
  const currency = price === null && table ? table.currency : 'USD';
  const log = (line: string) => ctx.log?.(`plan: ${line}`);
  const options: PlanOption[] = [];

  // Flags that do not apply to the chosen source are refused, not silently ignored.
  if (opts.from !== null && opts.hardware !== null) throw new UserError('--hardware: applies to the simulator\'s search, not to --from (measured runs); drop one (--gpu-type names the measured GPU for --prices)');
  if (opts.gpuType !== null && table === null) throw new UserError('--gpu-type: names the GPU to price from --prices; give --prices FILE (or --gpu-hour-cost alone)');
  if (opts.from !== null) {
    const dirs = opts.from;
    const gpusPerReplica = opts.gpusPerReplica ?? opts.tensorParallelSize?.[0] ?? 1;
    const cap = runsCapacity(dirs, judge, (line) => ctx.log?.(line));
    // A capacity answer from an invalid measurement is not one: refused unless --allow-invalid (then marked).
    const invalid = cap.stages.filter((s) => s.invalid !== null);
    if (invalid.length > 0 && !opts.allowInvalid) {
      return { report: null, invalid: `--from ${invalid[0]!.path} is an invalid run (${invalid[0]!.invalid})${invalid.length > 1 ? ` (+${invalid.length - 1} more invalid)` : ''}: its figures are not the server's capacity` };
    }
    const cost = priceOf(opts.gpuType);
    const stageLines = cap.stages.map((s) => `  ${s.rate.toFixed(2)} req/s ${s.pass ? '✓' : '✗'} ${s.path}${s.failing.length ? ` (${s.failing.join('; ')})` : ''}${s.invalid !== null ? ` [INVALID, accepted with --allow-invalid: ${s.invalid}]` : ''}`);
    const base = { name: `measured (${dirs.length} runs)`, gpus_per_replica: gpusPerReplica, gpu_hour_cost: cost, searches: {} };
    if (cap.rate_per_replica === null) {
      options.push({ ...base, feasible: false, reason: `no measured stage meets the SLOs (lowest: ${cap.stages[0]?.failing.join('; ') ?? 'none'})`, rate_per_replica_rps: null, plan: null, max_concurrency: null, max_input_len: null, max_output_len: null, method: [] });
    } else {
      options.push({
        ...base,
        feasible: true,
        reason: null,
        rate_per_replica_rps: cap.rate_per_replica,
        plan: capacityPlan({ traffic_rps: traffic.rps, rate_per_replica: cap.rate_per_replica, headroom, gpus_per_replica: gpusPerReplica, gpu_hour_cost: cost, currency }),
        max_concurrency: cap.max_concurrency,
        max_concurrency_source: concurrencySource(cap.max_concurrency_stage),
        max_input_len: cap.max_input_len,
        max_output_len: cap.max_output_len,
        method: ['Stages (highest rate below the first failing stage is sustainable; lengths and concurrency: the largest seen in passing stages):', ...stageLines],
      });
    }
  } else {
    const model = opts.model;
    const hardware = opts.hardware ?? ['h100'];
    const tps = opts.tensorParallelSize;
    const settings: ProbeSettings = {
      input_len: opts.randomInputLen,
      output_len: opts.randomOutputLen,
      probe_duration_ms: opts.probeDuration,
      seed: opts.seed,
      precision: opts.precision,
    };
    modelProfile(model);
    for (const hw of hardware) {
      hardwareProfile(hw);
      for (const tp of tps ?? [autoTp(hw, model)]) {
        const o: SimOption = { hardware: hw, model, tensor_parallel: tp, engine: opts.simProfile !== null ? (simProfileEngineFields(opts.simProfile, hw, model) as SimOption['engine']) : {} };
        const name = `${hw} × TP${tp}`;
        const cost = priceOf(hw);
        log(`${name}: checking the latency floor…`);
        const base = { name, gpus_per_replica: tp, gpu_hour_cost: cost, searches: {} as PlanOption['searches'] };
        const reason = infeasibility(o, settings, judge);
        const none = { rate_per_replica_rps: null, plan: null, max_concurrency: null, max_input_len: null, max_output_len: null, method: [] };
        if (reason !== null) {
          options.push({ ...base, feasible: false, reason, ...none });
          continue;
        }
        log(`${name}: searching the highest rate meeting the SLOs…`);
        const rate = searchRate(o, settings, judge);
        base.searches['rate (req/s)'] = { result: rate, unit: 'req/s' };
        if (rate.best === null) {
          options.push({ ...base, feasible: false, reason: 'no request rate meets the SLOs', ...none });
          continue;
        }
        const plan = capacityPlan({ traffic_rps: traffic.rps, rate_per_replica: rate.best, headroom, gpus_per_replica: tp, gpu_hour_cost: cost, currency });
        log(`${name}: ${rate.best.toFixed(2)} req/s per replica; searching concurrency and lengths…`);
        const conc = searchConcurrency(o, settings, judge, Math.round(rate.best));
        const inLen = searchLength(o, settings, judge, plan.load_per_replica_rps, 'input');
        const outLen = searchLength(o, settings, judge, plan.load_per_replica_rps, 'output');
        base.searches['concurrency'] = { result: conc, unit: 'requests' };
        base.searches['input length'] = { result: inLen, unit: 'tokens' };
        base.searches['output length'] = { result: outLen, unit: 'tokens' };
        options.push({
          ...base,
          feasible: true,
          reason: null,
          rate_per_replica_rps: rate.best,
          plan,
          max_concurrency: conc.best,
          max_concurrency_source: CLOSED_LOOP_SEARCH,
          max_input_len: inLen.best,
          max_output_len: outLen.best,
          method: [
            `Searched in virtual time (${model}; ${settings.input_len} input / ${settings.output_len} output tokens; each probe ${settings.probe_duration_ms / 1000} s of Poisson arrivals, seed ${settings.seed}; ` +
              `doubling then bisection to ${(settings.precision * 100).toFixed(0)}%; lengths at the planned load per replica, the other length fixed):`,
          ],
        });
      }
    }
  }
  const report: PlanReport = {
    schema: 'infermeter.plan/1',
    traffic_rps: traffic.rps,
    traffic_source: traffic.source,
    headroom,
    slos: texts,
    currency,
    options: ranked(options),
    elapsed_s: (performance.now() - t0) / 1000,
  };
  return { report, invalid: null };
}
