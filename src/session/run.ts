/**
 * One run, the whole pipeline: redactor → plan → open the target (built-in simulator, pre-flight)
 * → measure through the in-process worker pool (measure.ts) → the result object, written into the
 * run directory and the history. `infermeter run` and the programmatic `run()` call it; it prints
 * nothing (progress through the context's callbacks).
 */
import { startOtlpReceiver, type OtlpReceiver } from '../observe/otlp/otlp-receiver.js';
import { OtlpForwarder } from '../observe/otlp/otlp-forward.js';
import { collectTraces } from './collect-traces.js';
import { SPANS_FILE, spansFileLines } from '../store/spans-file.js';
import { UserError } from '../errors/user-error.js';
import { closeRecords, fileFaultCode, RecordsWriter, specFaultLine } from '../store/records-file.js';
import { createRunDir, createRunDirAt, type RunDir } from '../store/run-dir.js';
import { ProgressFile } from '../store/progress-file.js';
import { Redactor, redactSecrets, redactUrl } from '../util/redact.js';
import { completeRun, type CompletedRun } from './finish-run.js';
import { recordInHistory } from './record-history.js';
import { describeLoad, prepareRun } from './prepare-run.js';
import { specInputUnit, type RunSpec } from './run-spec.js';
import { resolveCostInputs } from './cost-inputs.js';
import { capacityGate, capacitySection } from './capacity-gate.js';
import { clientOf, healthOf, loadThreads, poolDriver } from './drive-load.js';
import { openTarget, saltPrompts, type OpenTarget } from './run-target.js';
import { envOf, proxyOf, type SessionContext } from './context.js';
import type { ProxySettings } from '../util/proxy.js';
import { measureLoad } from './measure.js';
import { checkRunBounds } from './run-bounds.js';
import { captureTargetEnvironment } from './environment-capture.js';

/**
 * A finished run, or one stopped before its load started. `diskFault`: the results folder failed
 * mid-run (records-file.ts): the one line saying what was kept; the caller exits DISK_FAULT.
 */
export type RunSessionOutcome = ({ started: true } & CompletedRun & { redactor: Redactor; diskFault?: string }) | { started: false; redactor: Redactor };

/** The run's secrets (API key, sensitive headers, URL credentials): every line and file passes through it. */
export function runRedactor(spec: RunSpec, ctx: SessionContext): { redactor: Redactor; apiKey: string | null; proxy: ProxySettings } {
  const apiKey = envOf(ctx)[spec.target.api_key_env] || null;
  // HTTP(S)_PROXY / --proxy: read here with the key, so the proxy's credentials are secrets of the run too.
  const proxy = proxyOf(ctx);
  return { redactor: Redactor.forTarget({ baseUrl: spec.target.base_url, apiKey, headers: spec.target.headers, proxy }), apiKey, proxy };
}

/** Where a run's directory goes when not `<result_dir>/<timestamp>-<name>`: a repeat's `repeat-k` (session/repeat.ts). */
export interface RunPlacement {
  path: string;
  /** The run id (result.json `run.id`, the history's run_id). */
  id: string;
}

export async function runSession(spec: RunSpec, ctx: SessionContext = {}, at: RunPlacement | null = null): Promise<RunSessionOutcome> {
  const { redactor, apiKey, proxy } = runRedactor(spec, ctx);
  try {
    return await runWithRedactor(spec, ctx, apiKey, redactor, at, proxy);
  } catch (err) {
    if (err instanceof UserError) throw new UserError(redactor.scrub(err.message));
    throw err;
  }
}

async function runWithRedactor(spec: RunSpec, ctx: SessionContext, apiKey: string | null, redactor: Redactor, at: RunPlacement | null, proxy: ProxySettings): Promise<RunSessionOutcome> {
  const log = (line: string) => ctx.log?.(redactor.scrub(line));
  let target: OpenTarget | null = null;
  let dir: RunDir | null = null;
  let writer: RecordsWriter | null = null;
  let specFault: { code: string; dir: string } | null = null;
  /** spec.json as written, for the history row. */
  let savedSpec: unknown = null;
  let receiver: OtlpReceiver | null = null;
  // A signal before the load starts (planning, simulator start, pre-flight) ends the run there.
  const notStarted = (): RunSessionOutcome => {
    log('interrupted before the load started: nothing was sent');
    return { started: false, redactor };
  };
  try {
    saltPrompts(spec);
    // Everything the user could have got wrong is checked before anything starts.
    let { workload, totalRequests, phases } = await prepareRun(spec, log);
    checkRunBounds(spec, { workload, totalRequests }, { held: 'objects', warn: log, freeSpace: ctx.freeSpace, sockets: { specs: [spec], limits: ctx.fdLimits } });
    const simulated = spec.target.base_url === null;
    const cost = resolveCostInputs(spec.cost, simulated ? { gpus: spec.sim.tensor_parallel_size ?? 1, gpuType: spec.sim.hardware } : { gpus: null, gpuType: null });
    const load = spec.load;
    const replay = workload.timed ?? null;
    if (ctx.signal?.aborted) return notStarted();
    // Before anything is sent: can this machine drive the plan? (It may pick --workers, or lower the demo's rate.)
    const capacity = await capacityGate(spec, workload, log);
    // The quickstart's lowered demo sends fewer prompts: planned again for its new size.
    if (load.num_prompts !== null && totalRequests !== null && !workload.timed && load.num_prompts !== totalRequests) ({ workload, totalRequests, phases } = await prepareRun(spec, () => {}));

    // A trace replay keeps its own (scaled) timestamps: --request-rate does not apply to it.
    const traced = replay !== null && load.concurrency === null;
    const shape = load.concurrency !== null
      ? `concurrency ${load.concurrency}`
      : traced
        ? `at the trace's timestamps, over ${Math.round((replay.at(-1)?.at_ms ?? 0) / 100) / 10} s`
        : `${Number.isFinite(load.request_rate) ? `${load.request_rate} req/s` : 'all at once'}`;
    const change = traced ? '--trace-time-scale, --trace-rate-scale' : '--num-prompts, --request-rate, --concurrency, --duration';
    const loadLine = `load: ${totalRequests ?? 'unbounded'} requests${load.duration_ms !== null ? ` for ${load.duration_ms / 1000} s` : ''}, ${shape} (change with ${change})`;
    // --otlp-receiver: listening before the target opens, so the built-in simulator can export to it.
    const forward = spec.observe.otlp_forward ? new OtlpForwarder(spec.observe.otlp_forward, log) : null;
    receiver = spec.observe.otlp_receiver ? await startOtlpReceiver(spec.observe.otlp_receiver, log, { forward }) : null;
    if (receiver) log(`OTLP${receiver.protocol === 'grpc' ? '/gRPC' : '/HTTP'} trace receiver at ${receiver.endpoint} (point the server's OTLP traces endpoint here)${forward ? `, forwarding to ${redactUrl(spec.observe.otlp_forward!)}` : ''}`);
    target = await openTarget(spec, workload, apiKey, log, loadLine, ctx.signal, { proxy, ...(receiver ? { otlpTracesEndpoint: receiver.endpoint } : {}) });
    if (target === null) return notStarted();
    const { baseUrl, model } = target;

    if (spec.output.save) {
      dir = at ? createRunDirAt(at.path, at.id) : createRunDir(spec.output.result_dir, spec.name, new Date());
      savedSpec = redactor.scrubDeep(redactSecrets({ ...spec, target: { ...spec.target, base_url: simulated ? null : baseUrl, model } }));
      try {
        dir.writeJson('spec.json', savedSpec);
        writer = new RecordsWriter(dir.recordsPath, { survive: true });
      } catch (err) {
        // A full or read-only folder before the load: the run goes on in memory, nothing more is written there.
        const code = fileFaultCode(err);
        if (code === null) throw err;
        specFault = { code, dir: dir.path };
        dir = null;
      }
    }
    const progressFile = dir ? new ProgressFile(dir.path) : null;
    const open = target;
    // Before the load: what is about to be measured (bounded probes; a field not revealed stays null with its reason).
    const environment = await captureTargetEnvironment(spec, target, ctx);
    const { driven, observed } = await measureLoad({
      spec,
      baseUrl,
      proxy: target.proxy,
      ctx,
      log,
      threads: loadThreads(spec),
      view: {
        title: `infermeter run: ${model} @ ${simulated ? `built-in simulator (${spec.target.endpoint})` : `${redactUrl(baseUrl)}${spec.target.endpoint}`}`,
        burst: load.concurrency === null && !replay && load.request_rate === Infinity,
        ...(progressFile ? { onFrame: (f) => progressFile.append(f) } : {}),
      },
      drive: poolDriver(spec, open, { totalRequests, phases }, { ...(ctx.signal ? { signal: ctx.signal } : {}), log }),
      sink: (rec) => writer?.write(rec),
    });
    const outcome = driven.outcome;
    // A full or read-only folder mid-run: the figures still come from the records in memory; nothing more is written there.
    const diskFault = specFault ? specFaultLine(specFault.code, specFault.dir, outcome.records.length) : closeRecords(writer, dir?.path ?? null, { records: outcome.records.length });
    writer = null;
    if (outcome.interrupted) log('interrupted: in-flight requests cancelled; reporting what was measured');
    if (observed && dir && !diskFault) dir.writeJsonLines('server-metrics.jsonl', observed.snapshots);
    const spansFile = spec.observe.spans_file;
    const traces = receiver || spansFile ? await collectTraces({ receiver, spansFile }, target, outcome.records, spec.observe.otlp_wait_ms, log) : null;
    if (traces && dir && !diskFault) dir.writeJsonLines(SPANS_FILE, spansFileLines(traces.spans));

    const done = await completeRun({
      spec,
      inputUnit: specInputUnit(spec.target),
      dir: diskFault ? null : dir,
      records: outcome.records,
      run: { name: spec.name, started_at: driven.startedAt.toISOString(), ended_at: new Date().toISOString(), interrupted: outcome.interrupted, driver: 'http', monotonic_origin_ns: driven.monotonicOrigin },
      target: target.describe(),
      load: describeLoad(load, { trace: replay !== null, numPrompts: totalRequests, ignoreEos: target.ignoreEos }),
      workload: workload.describe(),
      health: healthOf(spec, driven, replay !== null),
      client: { ...clientOf(spec, driven, target), ...(capacity ? { capacity_check: capacitySection(capacity) } : {}) },
      ignoreEos: target.ignoreEos,
      clientTokenizer: spec.workload.tokenizer ? 'tokenizer' : 'estimate',
      promptOverheadTokens: target.promptOverheadTokens,
      promptPerMessageTokens: target.promptPerMessageTokens,
      tokenizerId: spec.workload.tokenizer,
      redactor,
      cost,
      server: observed?.observation ?? null,
      coldStart: target.coldStart?.result(outcome.records) ?? null,
      traces: traces?.figures ?? null,
      environment,
    });
    if (diskFault || done.diskFault) return { started: true, ...done, redactor, diskFault: diskFault ?? done.diskFault };
    await recordInHistory(spec.output.result_dir, dir, log, { result: done.result, spec: savedSpec });
    return { started: true, ...done, redactor };
  } finally {
    writer?.close();
    await target?.close();
    await receiver?.close();
  }
}
