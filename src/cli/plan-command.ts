/**
 * `infermeter plan`: from traffic and SLOs to replicas, GPUs and monthly cost, with the
 * arithmetic shown. Capacity comes from the simulator (a virtual-time search per option:
 * --hardware × --tensor-parallel-size) or from saved runs of a real server (--from).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../errors/user-error.js';
import { EXIT_CODES } from '../errors/exit-codes.js';
import { parseDurationMs, parseRate, UnitError } from '../config/units.js';
import { lookupPrice, readPriceTable, type PriceTable } from '../config/prices.js';
import { capacityPlan } from '../analysis/plan/capacity.js';
import { engineConfig, hardwareProfile, modelProfile, numGpuBlocks } from '../sim/index.js';
import { simProfileEngineFields } from '../session/builtin-sim.js';
import { twinErrorLine } from './twin-error-text.js';
import { renderPlanText, ranked, type PlanOption, type PlanReport } from '../report/plan-report.js';
import { infeasibility, searchConcurrency, searchLength, searchRate, type ProbeSettings, type SimOption } from '../session/plan/sim-capacity.js';
import { runsCapacity } from '../session/plan/runs-capacity.js';
import { makeSloJudge } from '../session/plan/slo-judge.js';
import type { CliIo } from './io.js';

function share(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(%)?$/.exec(text.trim());
  if (!m) throw new UserError(`${flag}: expected a percentage like 30% (or a share like 0.3), got "${text}"`);
  return m[2] ? Number(m[1]) / 100 : Number(m[1]);
}

function list(v: unknown): string[] {
  const items = (Array.isArray(v) ? v : [v]).flatMap((x) => String(x).split(',')).map((x) => x.trim()).filter(Boolean);
  return items;
}

function int(v: unknown, flag: string, fallback: number, min = 1): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new UserError(`${flag}: expected an integer ≥ ${min}, got "${String(v)}"`);
  return n;
}

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
    const resultPath = join(text, 'result.json');
    if (!existsSync(resultPath)) throw new UserError(`--traffic ${text}: no result.json in this directory`);
    const res = JSON.parse(readFileSync(resultPath, 'utf8')) as { load?: { request_rate?: unknown; mode?: unknown }; metrics?: { throughput?: { request_per_s?: number | null } } };
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

export async function planCommand(opts: Record<string, unknown>, io: CliIo): Promise<number> {
  const t0 = performance.now();
  if (typeof opts.traffic !== 'string') throw new UserError('--traffic is required: a rate such as 200rps, a run directory or a trace file');
  const traffic = parseTraffic(opts.traffic);
  const sloTexts = opts.slo === undefined ? [] : Array.isArray(opts.slo) ? (opts.slo as string[]) : [String(opts.slo)];
  if (sloTexts.length === 0) throw new UserError("--slo is required, e.g. --slo 'p95(ttft) < 1.5s' --slo 'p95(tpot) < 80ms'");
  const { judge, texts } = makeSloJudge(sloTexts, Array.isArray(opts.goodput) ? (opts.goodput as string[]) : []);
  const headroom = typeof opts.headroom === 'string' ? share(opts.headroom, '--headroom') : 0.3;
  if (!(headroom >= 0 && headroom < 1)) throw new UserError('--headroom: expected a share in [0%, 100%), e.g. 30%');
  const price = typeof opts.gpuHourCost === 'string' ? Number(opts.gpuHourCost) : null;
  if (price !== null && !(price > 0)) throw new UserError(`--gpu-hour-cost: expected a positive price, got "${String(opts.gpuHourCost)}"`);
  const table: PriceTable | null = typeof opts.prices === 'string' ? readPriceTable(opts.prices) : null;
  const priceOf = (gpu: string | null): number | null => {
    if (price !== null) return price;
    if (table === null) return null;
    if (gpu === null) throw new UserError('--prices with --from: add --gpu-type (the GPU model of the measured server)');
    return lookupPrice(table, gpu, opts.prices as string);
  };
  const currency = price === null && table ? table.currency : 'USD';
  const log = (line: string) => io.stderr.write(`plan: ${line}\n`);
  const options: PlanOption[] = [];
  let usedSimulator = false;

  // Flags that do not apply to the chosen source are refused, not silently ignored.
  if (opts.from !== undefined && opts.hardware !== undefined) throw new UserError('--hardware: applies to the simulator\'s search, not to --from (measured runs); drop one (--gpu-type names the measured GPU for --prices)');
  if (typeof opts.gpuType === 'string' && table === null) throw new UserError('--gpu-type: names the GPU to price from --prices; give --prices FILE (or --gpu-hour-cost alone)');
  if (opts.from !== undefined) {
    const dirs = list(opts.from);
    const gpusPerReplica = int(opts.gpusPerReplica ?? opts.tensorParallelSize, '--gpus-per-replica', 1);
    const cap = runsCapacity(dirs, judge, (line) => io.stderr.write(`${line}\n`));
    // A capacity answer from an invalid measurement is not one: refused unless --allow-invalid (then marked).
    const invalid = cap.stages.filter((s) => s.invalid !== null);
    if (invalid.length > 0 && opts.allowInvalid !== true) {
      io.stderr.write(`plan: --from ${invalid[0]!.path} is an invalid run (${invalid[0]!.invalid})${invalid.length > 1 ? ` (+${invalid.length - 1} more invalid)` : ''}: its figures are not the server's capacity (exit 5; --allow-invalid accepts it)\n`);
      return EXIT_CODES.INVALID_RUN;
    }
    const cost = priceOf(typeof opts.gpuType === 'string' ? opts.gpuType : null);
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
        max_input_len: cap.max_input_len,
        max_output_len: cap.max_output_len,
        method: ['Stages (highest rate below the first failing stage is sustainable; lengths and concurrency: the largest seen in passing stages):', ...stageLines],
      });
    }
  } else {
    usedSimulator = true;
    const model = typeof opts.model === 'string' ? opts.model : 'llama-3.1-8b';
    const hardware = opts.hardware === undefined ? ['h100'] : list(opts.hardware);
    const tps = opts.tensorParallelSize === undefined ? null : list(opts.tensorParallelSize).map((x) => int(x, '--tensor-parallel-size', 1));
    const settings: ProbeSettings = {
      input_len: int(opts.randomInputLen, '--random-input-len', 1024),
      output_len: int(opts.randomOutputLen, '--random-output-len', 128),
      probe_duration_ms: typeof opts.probeDuration === 'string' ? parseProbeDuration(opts.probeDuration) : 60_000,
      seed: int(opts.seed, '--seed', 0, 0),
      precision: typeof opts.precision === 'string' ? share(opts.precision, '--precision') : 0.05,
    };
    if (!(settings.precision > 0 && settings.precision < 1)) throw new UserError('--precision: expected a share in (0%, 100%), e.g. 5%');
    modelProfile(model);
    for (const hw of hardware) {
      hardwareProfile(hw);
      for (const tp of tps ?? [autoTp(hw, model)]) {
        const o: SimOption = { hardware: hw, model, tensor_parallel: tp, engine: typeof opts.simProfile === 'string' ? (simProfileEngineFields(opts.simProfile, hw, model) as SimOption['engine']) : {} };
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
  // Plans from the simulator carry its error bar on the user's runs (sim validate), or say it has none.
  const twin = usedSimulator ? `\n${twinErrorLine(typeof opts.simProfile === 'string' ? opts.simProfile : null)}` : '';
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
  if (opts.json === true) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else io.stdout.write(`${renderPlanText(report)}${twin}\n`);
  if (!options.some((o) => o.feasible)) {
    io.stderr.write('plan: no option meets the SLOs (reasons above)\n');
    return EXIT_CODES.USAGE;
  }
  return EXIT_CODES.OK;
}

function parseProbeDuration(text: string): number {
  try {
    const ms = parseDurationMs(text, 's');
    if (ms < 1000) throw new UnitError('at least 1s');
    return ms;
  } catch (err) {
    throw new UserError(`--probe-duration: ${err instanceof Error ? err.message : String(err)}`);
  }
}
