/**
 * `infermeter sweep` / `infermeter sim sweep`: the same run, stage after stage at rising load
 * (a list, --auto N, or --search for the highest load meeting the SLOs), into one sweep
 * directory (records.jsonl with each record's `stage`, sweep.json) and one curve on the console.
 */
import { EXIT_CODES } from '../errors/exit-codes.js';
import { UserError } from '../errors/user-error.js';
import { RecordsWriter } from '../store/records-file.js';
import { createRunDir, type RunDir } from '../store/run-dir.js';
import { renderSweep, stageDoneLine, stageLabel } from '../report/sweep-summary.js';
import { analyzeStages, runStages, type RunStage, type SweepPlan } from '../sweep/run-sweep.js';
import { parseConcurrencyList, parseRateList, toJsonLoad, type StageLoad } from '../sweep/stages.js';
import { SWEEP_SCHEMA, type SweepResult } from '../sweep/sweep-result.js';
import { Redactor, redactSecrets } from '../util/redact.js';
import { infermeterVersion, type CliIo } from './io.js';
import { describeLoad, planRun } from '../session/run-plan.js';
import type { RunSpec } from '../session/run-spec.js';
import { recordInHistory } from '../session/record-history.js';
import { writeRunReport } from './report-command.js';
import { openTarget, saltPrompts, type OpenTarget } from '../session/run-target.js';
import { signalExitCode } from './signals.js';
import { checkStageLimits, httpStages, virtualStages } from '../session/sweep-stages.js';
import type { CoordinatorFlags } from './distributed-flags.js';
import { DistributedSweep } from '../session/distributed-sweep.js';

function positive(flag: string, raw: unknown, integer: boolean): number {
  const n = Number(raw);
  if (!(Number.isFinite(n) && n > 0 && (!integer || Number.isInteger(n)))) {
    throw new UserError(`${flag}: expected a positive ${integer ? 'integer' : 'number'}, got "${String(raw)}"`);
  }
  return n;
}

/** The sweep plan from the flags; one line naming the flag when they are wrong. */
export function sweepPlan(opts: Record<string, unknown>, spec: RunSpec): SweepPlan {
  const given = ['requestRates', 'concurrencies', 'auto', 'search'].filter((k) => opts[k] !== undefined);
  const names: Record<string, string> = { requestRates: '--request-rates', concurrencies: '--concurrencies', auto: '--auto', search: '--search' };
  if (given.length === 0) throw new UserError('sweep: say which stages to run: --request-rates 1,2,4,inf, --concurrencies 1,4,16,64, --auto 8, or --search with --slo');
  if (given.length > 1) throw new UserError(`${given.map((k) => names[k]).join(' and ')}: pick one way to choose the stages`);
  if (opts.requestRates !== undefined) return { mode: 'list', loads: parseRateList(String(opts.requestRates)) };
  if (opts.concurrencies !== undefined) return { mode: 'list', loads: parseConcurrencyList(String(opts.concurrencies)) };
  if (opts.auto !== undefined) return { mode: 'auto', n: positive('--auto', opts.auto, true) };
  const kind = opts.search === true || opts.search === 'rate' ? 'rate' : opts.search === 'concurrency' ? 'concurrency' : null;
  if (kind === null) throw new UserError(`--search: expected rate or concurrency, got "${String(opts.search)}"`);
  if (spec.slos.length === 0) throw new UserError("--search: give the SLOs to hold with --slo, e.g. --slo 'p95(ttft) < 1.5s'");
  let precision = 0.05;
  if (opts.precision !== undefined) {
    const m = /^(\d+(?:\.\d+)?|\.\d+)\s*(%)?$/.exec(String(opts.precision).trim());
    precision = m ? (m[2] ? Number(m[1]) / 100 : Number(m[1])) : NaN;
    if (!(precision > 0 && precision < 1)) throw new UserError(`--precision: expected a share such as 5% or 0.05, got "${String(opts.precision)}"`);
  }
  const integer = kind === 'concurrency';
  const start = opts.searchStart !== undefined ? positive('--search-start', opts.searchStart, integer) : 1;
  const max = opts.searchMax !== undefined ? positive('--search-max', opts.searchMax, integer) : 1024;
  if (start > max) throw new UserError(`--search-start ${start} is above --search-max ${max}`);
  return { mode: 'search', kind, options: { start, precision, min: integer ? 1 : Math.min(start, 1) / 64, max, integer } };
}

/** The loads a plan will surely run (for checks made before anything starts). */
function knownLoads(plan: SweepPlan): StageLoad[] {
  if (plan.mode === 'list') return plan.loads;
  if (plan.mode === 'auto') return [{ kind: 'concurrency', concurrency: 1 }, { kind: 'rate', rate: Infinity }];
  return [];
}

export async function sweepCommand(spec: RunSpec, opts: Record<string, unknown>, io: CliIo, driver: 'http' | 'virtual', distributed: CoordinatorFlags | null = null): Promise<number> {
  const apiKey = io.env[spec.target.api_key_env] || null;
  const redactor = Redactor.forTarget({ baseUrl: spec.target.base_url, apiKey, headers: spec.target.headers });
  const log = (line: string) => io.stderr.write(`${redactor.scrub(line)}\n`);
  if (driver === 'virtual' && spec.target.base_url !== null) throw new UserError('--base-url: sim sweep drives the simulated engine in virtual time; use `infermeter sweep` for a server');
  const plan = sweepPlan(opts, spec);
  checkStageLimits(spec, knownLoads(plan));

  let target: OpenTarget | null = null;
  let cluster: DistributedSweep | null = null;
  let dir: RunDir | null = null;
  let writer: RecordsWriter | null = null;
  try {
    // The workload is built once up front so that bad workload flags fail before any stage.
    if (driver === 'http') saltPrompts(spec);
    const first = await planRun(spec, log);
    const model = spec.target.model ?? spec.sim.model;
    if (driver === 'http') {
      const note = distributed && spec.target.base_url === null ? 'the built-in simulator listens on 127.0.0.1: the workers must run on this machine (give --base-url for workers elsewhere)' : null;
      target = await openTarget(spec, first.workload, apiKey, log, note, io.signal);
      if (target === null) {
        log('interrupted before the first stage: nothing was sent');
        return signalExitCode(io.signal);
      }
      if (distributed) cluster = await DistributedSweep.open(spec, distributed, target, io, log);
    }
    const startedAt = new Date();
    if (spec.output.save) {
      dir = createRunDir(spec.output.result_dir, spec.name === 'run' ? 'sweep' : spec.name, startedAt);
      dir.writeJson('spec.json', redactor.scrubDeep(redactSecrets({ ...spec, target: { ...spec.target, model: target?.model ?? model } })));
      writer = new RecordsWriter(dir.recordsPath);
    }
    const sink = { write: (rec: Parameters<RecordsWriter['write']>[0]) => writer?.write(rec) };
    const runStage: RunStage = cluster ? cluster.stages(sink, startedAt, dir?.path ?? null) : target ? httpStages(spec, target, io, sink, log) : virtualStages(spec, model, sink, log);
    const t0 = performance.now();
    const run = await runStages(plan, runStage, {
      stopped: () => io.signal?.aborted === true || cluster?.exhausted === true,
      onStageStart: (i, load, role, total) => log(`${stageLabel(i, total, role, load)}: starting`),
      onStageEnd: (s) => log(stageDoneLine(s, plan.mode === 'list' ? plan.loads.length : plan.mode === 'auto' ? plan.n + 2 : null)),
    });
    writer?.close();
    writer = null;
    const clusterInfo = cluster?.describe() ?? null;
    await cluster?.close();
    cluster = null;
    log(`sweep: ${run.stages.length} stages in ${((performance.now() - t0) / 1000).toFixed(1)} s${driver === 'virtual' ? ' (virtual time)' : ''}`);

    const anyFailed = run.stages.some((s) => s.slos_pass === false);
    const result: SweepResult = {
      schema: SWEEP_SCHEMA,
      infermeter_version: infermeterVersion(),
      sweep: { id: dir?.id ?? null, name: spec.name, mode: plan.mode, driver, started_at: startedAt.toISOString(), ended_at: new Date().toISOString(), interrupted: run.interrupted, ...(clusterInfo ? { distributed: clusterInfo } : {}) },
      target: target ? target.describe() : { base_url: null, endpoint: spec.target.endpoint, model, simulated: true, simulator: { hardware: spec.sim.hardware, model }, stream: true },
      load: { ...describeLoad(spec.load, { trace: first.workload.timed !== undefined, numPrompts: first.totalRequests, ignoreEos: target?.ignoreEos ?? true }), mode: null, request_rate: null, concurrency: null, stage_warmup: spec.load.warmup },
      workload: first.workload.describe(),
      slos: spec.slos.map((o) => o.text),
      stages: run.stages.map((s) => ({ ...s, load: toJsonLoad(s.load) })),
      analysis: analyzeStages(run.stages),
      auto: run.auto,
      search: run.search,
      pass: plan.mode === 'search' ? run.search?.found !== null && run.search?.found !== undefined : !anyFailed,
    };
    dir?.writeJson('sweep.json', redactor.scrubDeep(result));
    if (spec.output.json) io.stdout.write(`${redactor.scrub(JSON.stringify(result, null, 2))}\n`);
    else {
      const where = result.target.simulated ? `built-in simulator${driver === 'virtual' ? ', virtual time' : ''}` : `${String(result.target.base_url)}${spec.target.endpoint}`;
      io.stdout.write(`${redactor.scrub(renderSweep(result, `infermeter ${driver === 'virtual' ? 'sim sweep' : 'sweep'}: ${String(result.target.model)} @ ${where}`))}\n`);
      if (dir) io.stdout.write(`\nSweep directory: ${dir.path}\n`);
    }
    if (dir) {
      if (spec.output.report !== false) {
        const reportPath = await writeRunReport(dir.path);
        if (!spec.output.json) io.stdout.write(`Report: ${reportPath}\n`);
      }
      await recordInHistory(spec.output.result_dir, dir, io);
    }
    if (run.interrupted) return EXIT_CODES.SIGINT;
    return result.pass || spec.slos.length === 0 ? EXIT_CODES.OK : EXIT_CODES.SLO_FAILED;
  } catch (err) {
    if (err instanceof UserError) throw new UserError(redactor.scrub(err.message));
    throw err;
  } finally {
    writer?.close();
    await cluster?.close().catch(() => {});
    await target?.close();
  }
}
