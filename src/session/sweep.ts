/**
 * A sweep as a session: the same run, stage after stage at rising load (a list, --auto N, or
 * --search for the highest load meeting the SLOs), each stage through the run pipeline
 * (sweep-stages.ts: HTTP, virtual time, or NATS workers), into one sweep directory (records.jsonl
 * with each record's `stage`, sweep.json, report.html) and the sweep result object. Prints nothing.
 */
import { checkRunBounds } from './run-bounds.js';
import { UserError } from '../errors/user-error.js';
import { closeRecords, fileFaultCode, RecordsWriter, resultFaultLine, specFaultLine } from '../store/records-file.js';
import { createRunDir, type RunDir } from '../store/run-dir.js';
import { stageDoneLine, stageLabel } from '../report/sweep-summary.js';
import { analyzeSweepStages, planDimension, runStages, type RunStage, type StageSequence } from '../sweep/run-sweep.js';
import { formatLoad, toJsonLoad, type StageLoad } from '../sweep/stages.js';
import type { Workload } from '../workload/index.js';
import { capacityGate, capacitySection, type CapacityCheck, type GateOptions } from './capacity-gate.js';
import { checkPrefixCache } from '../sweep/prefix-cache.js';
import { sweepGatesPass, sweepSchemaFor, type SweepResult } from '../sweep/sweep-result.js';
import { loadEndpointPlugin, resolveEndpointKind } from '../client/endpoints/registry.js';
import { redactSecrets, type Redactor } from '../util/redact.js';
import { infermeterVersion } from './version.js';
import { describeLoad, prepareRun } from './prepare-run.js';
import type { RunSpec } from './run-spec.js';
import { recordInHistory } from './record-history.js';
import { writeRunReport } from './write-report.js';
import { openTarget, saltPrompts, type OpenTarget } from './run-target.js';
import { captureTargetEnvironment, virtualEnvironment } from './environment-capture.js';
import { batchSweepLoad, checkStageLimits, httpStages, stageSpec, virtualStages } from './sweep-stages.js';
import { fetchHint, type CoordinatorFlags } from './coordinator-options.js';
import { DistributedSweep } from './distributed-sweep.js';
import type { SessionContext } from './context.js';
import { runRedactor } from './run.js';
import type { ProxySettings } from '../util/proxy.js';
import { exitCodeFor } from '../errors/exit-codes.js';

/** The sweep's exit code (errors/exit-codes.ts): a stop signal, an invalid stage (5 unless --allow-invalid), a failed gate (3). */
export function sweepExitCode(result: SweepResult, gated: boolean, signal: AbortSignal | undefined): number {
  const invalid = (result.invalid_stages ?? []).length > 0;
  const gatesPass = sweepGatesPass(result, result.search ? 'search' : 'list');
  return exitCodeFor({
    stoppedBy: result.sweep.interrupted && signal?.aborted ? { reason: signal.reason } : null,
    valid: !invalid,
    allowInvalid: result.allow_invalid === true,
    gatesPass: gated ? gatesPass : null,
  });
}

/** The loads a plan will surely run (for checks made before anything starts). */
function knownLoads(plan: StageSequence): StageLoad[] {
  if (plan.mode === 'list') return plan.loads;
  if (plan.mode === 'batch') return plan.load ? [plan.load] : [];
  if (plan.mode === 'auto') return [{ kind: 'concurrency', concurrency: 1 }, { kind: 'rate', rate: Infinity }];
  return [];
}

export interface SweepOptions {
  /** 'http': against --base-url or the built-in simulator over HTTP; 'virtual': the simulated engine in virtual time. */
  driver: 'http' | 'virtual';
  /** sweep --distributed: the stages are shared by NATS workers. */
  distributed?: CoordinatorFlags | null;
  /** The capacity check's self-test and machine (a test gives fixed figures; capacity-gate.ts). */
  capacity?: GateOptions;
}

/**
 * The capacity check of a sweep (capacity-gate.ts, as `run` has it), once before anything is
 * sent, on the stage that asks most of the client: a list's highest finite rate (or its highest
 * concurrency). It may choose --workers for every stage, and refuses a sweep whose top stage this
 * machine cannot drive. An --auto sweep's rates and a --search's probes are chosen as it goes:
 * said, not checked — each stage's validity verdict tells whether the client kept up.
 */
async function sweepCapacityGate(spec: RunSpec, plan: StageSequence, workload: Workload, log: (line: string) => void, o: GateOptions | undefined): Promise<CapacityCheck | null> {
  if (plan.mode === 'batch' && plan.load) {
    // Every stage has the same load; the largest batch asks most of the client (the biggest bodies).
    const size = plan.sizes.at(-1)!;
    const stage = stageSpec(spec, plan.load, plan.sizes.length - 1, size);
    log(`capacity check: the sweep's fixed load, ${formatLoad(plan.load)}, at its largest batch size, ${size}`);
    const check = await capacityGate(stage, workload, log, o);
    spec.load.workers = stage.load.workers;
    return check;
  }
  if (plan.mode !== 'list') {
    if (spec.validity.capacity_check) log(`capacity check: not made before the sweep — ${plan.mode === 'auto' ? "--auto's rates come from its probe" : "--search's probes are chosen as it goes"}; each stage's validity verdict says whether this client kept up`);
    return null;
  }
  const finite = plan.loads.filter((l) => l.kind === 'concurrency' || Number.isFinite(l.rate));
  const top = finite.at(-1) ?? plan.loads.at(-1)!;
  const stage = stageSpec(spec, top, plan.loads.indexOf(top));
  log(`capacity check: the sweep's most demanding stage, ${formatLoad(top)}`);
  const check = await capacityGate(stage, workload, log, o);
  // Every stage runs on the threads the top one needs.
  spec.load.workers = stage.load.workers;
  return check;
}

/**
 * A batch-size sweep's refusals (one line, exit 2), and its fixed load: only a kind whose requests
 * carry a batch (embeddings, rerank, score, a plugin's that generates nothing), without
 * --batch-size (each stage has its own), not distributed (its workers build stages from their own
 * flags), at a stated load (batchSweepLoad).
 */
async function checkBatchSweep(spec: RunSpec, distributed: boolean): Promise<StageLoad> {
  const t = spec.target;
  const kind = (await loadEndpointPlugin(t.endpoint_type)) ?? resolveEndpointKind(t.endpoint_type, t.endpoint);
  if (kind.generates) throw new UserError(`--batch-sizes: only embeddings, rerank and score requests carry a batch of inputs; the ${kind.name} endpoint takes one prompt per request`);
  if (spec.load.batch_size !== undefined) throw new UserError(`--batch-size ${spec.load.batch_size} and --batch-sizes: each stage of a batch-size sweep has its own batch size; drop --batch-size`);
  if (distributed) throw new UserError('--batch-sizes: not with --distributed (its workers build each stage from their own flags); run the batch-size sweep from one machine');
  return batchSweepLoad(spec);
}

/** A finished sweep, or one stopped before its first stage (nothing sent, nothing written). */
export type SweepSessionOutcome =
  | { started: true; result: SweepResult; dir: RunDir | null; reportPath: string | null; redactor: Redactor; allowInvalid: boolean; diskFault?: string }
  | { started: false; redactor: Redactor };

export async function sweepSession(spec: RunSpec, plan: StageSequence, o: SweepOptions, ctx: SessionContext = {}): Promise<SweepSessionOutcome> {
  const { redactor, apiKey, proxy } = runRedactor(spec, ctx);
  try {
    return await sweepWithRedactor(spec, plan, o, ctx, apiKey, redactor, proxy);
  } catch (err) {
    if (err instanceof UserError) throw new UserError(redactor.scrub(err.message));
    throw err;
  }
}

async function sweepWithRedactor(spec: RunSpec, plan: StageSequence, o: SweepOptions, ctx: SessionContext, apiKey: string | null, redactor: Redactor, proxy: ProxySettings): Promise<SweepSessionOutcome> {
  const { driver } = o;
  const distributed = o.distributed ?? null;
  const log = (line: string) => ctx.log?.(redactor.scrub(line));
  if (driver === 'virtual' && spec.target.base_url !== null) throw new UserError('--base-url: sim sweep drives the simulated engine in virtual time; use `infermeter sweep` for a server');
  if (plan.mode === 'batch') plan = { ...plan, load: await checkBatchSweep(spec, distributed !== null) };
  checkStageLimits(spec, knownLoads(plan));

  let target: OpenTarget | null = null;
  let cluster: DistributedSweep | null = null;
  let storeLink: DistributedSweep | null = null;
  let dir: RunDir | null = null;
  let writer: RecordsWriter | null = null;
  /** spec.json could not be written (full or read-only folder): the sweep goes on in memory, nothing more is written there. */
  let specFault: { code: string; dir: string } | null = null;
  try {
    // The workload is built once up front so that bad workload flags fail before any stage.
    if (driver === 'http') saltPrompts(spec);
    const first = await prepareRun(spec, log);
    // A stage's records are held until its figures; the file gets every stage's (a --search's count is not known: one stage's).
    const stageCount = plan.mode === 'list' ? plan.loads.length : plan.mode === 'batch' ? plan.sizes.length : plan.mode === 'auto' ? plan.n + 2 : null;
    checkRunBounds(spec, first, {
      held: 'objects',
      warn: log,
      stages: stageCount ?? 1,
      freeSpace: ctx.freeSpace,
      // The stages this process sends (a distributed sweep's workers check their own shares).
      ...(driver === 'http' && !distributed ? { sockets: { specs: knownLoads(plan).map((l, i) => stageSpec(spec, l, i)), limits: ctx.fdLimits } } : {}),
    });
    const model = spec.target.model ?? spec.sim.model;
    const finished = distributed ? await DistributedSweep.finished(distributed) : null;
    if (finished && distributed) {
      // A coordinator started again after the end (a retried pod): the workers are gone, the verdict stands.
      log(`sweep ${distributed.runId} finished already at ${finished.finished_at} (exit ${finished.exit_code}): nothing is sent again; its results: ${fetchHint(distributed)} (a new sweep needs another --run-id)`);
      return { started: true, result: finished.result as unknown as SweepResult, dir: null, reportPath: null, redactor, allowInvalid: spec.validity.allow_invalid };
    }
    // Before anything is sent (the coordinator of a distributed sweep sends nothing: its workers check their shares).
    const capacity = driver === 'http' && !distributed && !ctx.signal?.aborted ? await sweepCapacityGate(spec, plan, first.workload, log, o.capacity) : null;
    if (driver === 'http') {
      const note = distributed && spec.target.base_url === null ? 'the built-in simulator listens on 127.0.0.1: the workers must run on this machine (give --base-url for workers elsewhere)' : null;
      target = await openTarget(spec, first.workload, apiKey, log, note, ctx.signal, { proxy });
      if (target === null) {
        log('interrupted before the first stage: nothing was sent');
        return { started: false, redactor };
      }
      if (distributed) cluster = await DistributedSweep.open(spec, distributed, target, ctx, log);
    }
    // What every stage will measure: the target's fingerprint, or the simulator's own in virtual time.
    const environment = target
      ? await captureTargetEnvironment(spec, target, ctx)
      : await virtualEnvironment(spec, model);
    const startedAt = new Date();
    if (spec.output.save) {
      dir = createRunDir(spec.output.result_dir, spec.name === 'run' ? 'sweep' : spec.name, startedAt);
      try {
        dir.writeJson('spec.json', redactor.scrubDeep(redactSecrets({ ...spec, target: { ...spec.target, model: target?.model ?? model } })));
        writer = new RecordsWriter(dir.recordsPath, { survive: true });
      } catch (err) {
        const code = fileFaultCode(err);
        if (code === null) throw err;
        specFault = { code, dir: dir.path };
        dir = null;
      }
    }
    // Every record of every stage, for the disk-fault line (what was kept where).
    let recordCount = 0;
    const sink = {
      write: (rec: Parameters<RecordsWriter['write']>[0]) => {
        recordCount++;
        writer?.write(rec);
      },
    };
    const runStage: RunStage = cluster ? cluster.stages(sink, startedAt, dir?.path ?? null) : target ? httpStages(spec, target, ctx, sink, log) : virtualStages(spec, model, sink, log);
    const t0 = performance.now();
    const run = await runStages(plan, runStage, {
      stopped: () => ctx.signal?.aborted === true || cluster?.exhausted === true,
      onStageStart: (i, load, role, total, batchSize) => log(`${stageLabel(i, total, role, load, batchSize)}: starting`),
      onStageEnd: (s) => log(stageDoneLine(s, stageCount)),
    });
    // A full or read-only folder: the stages' figures are still computed from their records in memory; nothing more is written there.
    let diskFault = specFault ? specFaultLine(specFault.code, specFault.dir, recordCount) : closeRecords(writer, dir?.path ?? null, { resultFile: 'sweep.json' });
    writer = null;
    const clusterInfo = cluster?.describe() ?? null;
    // The workers are released now; with --store-results the link stays for storing the directory once written.
    const storing = distributed?.storeResults ? cluster : null;
    await cluster?.close(storing !== null);
    cluster = null;
    storeLink = storing;
    log(`sweep: ${run.stages.length} stages in ${((performance.now() - t0) / 1000).toFixed(1)} s${driver === 'virtual' ? ' (virtual time)' : ''}`);

    const allowInvalid = spec.validity.allow_invalid;
    const invalid = run.stages.filter((s) => s.validity !== null && !s.validity.valid).map((s) => s.index);
    const dimension = planDimension(plan);
    const analysis = analyzeSweepStages(run.stages, dimension, spec.slos.length > 0);
    const gatesPass = sweepGatesPass({ search: run.search, stages: run.stages, analysis }, plan.mode === 'search' ? 'search' : 'list');
    const result: SweepResult = {
      schema: sweepSchemaFor(dimension),
      infermeter_version: infermeterVersion(),
      // A batch-size sweep is a list of stages (its batch sizes) at one load.
      sweep: { id: dir?.id ?? null, name: spec.name, mode: plan.mode === 'batch' ? 'list' : plan.mode, dimension, driver, started_at: startedAt.toISOString(), ended_at: new Date().toISOString(), interrupted: run.interrupted, ...(clusterInfo ? { distributed: clusterInfo } : {}) },
      target: target ? target.describe() : { base_url: null, endpoint: spec.target.endpoint, model, simulated: true, simulator: { hardware: spec.sim.hardware, model }, stream: true },
      load: { ...describeLoad(spec.load, { trace: first.workload.timed !== undefined, numPrompts: first.totalRequests, ignoreEos: target?.ignoreEos ?? true }), mode: null, request_rate: null, concurrency: null, stage_warmup: spec.load.warmup },
      workload: first.workload.describe(),
      slos: spec.slos.map((x) => x.text),
      stages: run.stages.map((s) => ({ ...s, load: toJsonLoad(s.load) })),
      analysis,
      auto: run.auto,
      search: run.search,
      // An invalid stage's figures are not a measurement of the server: the sweep does not pass on them unless accepted.
      pass: gatesPass && (invalid.length === 0 || allowInvalid),
      invalid_stages: invalid,
      allow_invalid: allowInvalid,
      prefix_cache: checkPrefixCache(run.stages),
      ...(capacity ? { capacity_check: capacitySection(capacity) } : {}),
      environment,
    };
    if (!diskFault) {
      try {
        dir?.writeJson('sweep.json', redactor.scrubDeep(result));
      } catch (err) {
        // Full or read-only at the end: records.jsonl and spec.json stay, the summary is still printed.
        const code = fileFaultCode(err);
        if (code === null || !dir) throw err;
        diskFault = resultFaultLine(code, dir.path, recordCount, 'sweep.json', 'sweep');
      }
    }
    if (diskFault) {
      // Nothing more is written into the folder; with --store-results the result object is still stored (no directory).
      const scrubbed = redactor.scrubDeep(result);
      await storeLink?.storeResults(null, scrubbed, sweepExitCode(scrubbed, spec.slos.length > 0, undefined));
      return { started: true, result: scrubbed, dir: null, reportPath: null, redactor, allowInvalid, diskFault };
    }
    let reportPath: string | null = null;
    if (dir) {
      if (spec.output.report !== false) reportPath = await writeRunReport(dir.path);
      await recordInHistory(spec.output.result_dir, dir, log);
    }
    const scrubbed = redactor.scrubDeep(result);
    await storeLink?.storeResults(dir?.path ?? null, scrubbed, sweepExitCode(scrubbed, spec.slos.length > 0, undefined));
    return { started: true, result: scrubbed, dir, reportPath, redactor, allowInvalid };
  } finally {
    writer?.close();
    await cluster?.close().catch(() => {});
    await storeLink?.disconnect().catch(() => {});
    await target?.close();
  }
}
