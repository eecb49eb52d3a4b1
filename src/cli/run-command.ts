/**
 * `infermeter run`: spec → (simulator) → pre-flight → workload → load → records → report.
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { UserError } from '../errors/user-error.js';
import type { LoadJob } from '../runner/load-job.js';
import { runPool } from '../runner/worker-pool.js';
import type { SimServer } from '../sim/index.js';
import { startBuiltInSimulator } from './builtin-sim.js';
import { RecordsWriter } from '../store/records-file.js';
import { createRunDir, type RunDir } from '../store/run-dir.js';
import { Redactor, redactSecrets, redactUrl } from '../util/redact.js';
import { preflight } from '../client/preflight.js';
import { targetConfig } from '../client/target-config.js';
import { createProgressDisplay, resolveProgressMode } from '../report/progress-display.js';
import { finishRun } from './finish-run.js';
import { RunObserver } from '../observe/run-observer.js';
import { ColdStartStep } from './cold-start-step.js';
import { measureRecords, measuredWindow } from '../metrics/index.js';
import { ProgressFile } from '../store/progress-file.js';
import { recordInHistory } from './record-history.js';
import type { CliIo } from './io.js';
import { checkContextLength, defaultIgnoreEos, describeLoad, describePromptReuse, planRun } from './run-plan.js';
import type { RunSpec } from './run-spec.js';
import { resolveCostInputs } from './cost-inputs.js';
import { signalExitCode } from './signals.js';
import { onAbort } from '../util/on-abort.js';

/** Resolves with `p`, or with null as soon as `signal` aborts (at once if it has). */
function unlessAborted<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T | null> {
  return new Promise<T | null>((resolve, reject) => {
    const detach = onAbort(signal, () => resolve(null));
    p.then(
      (v) => (detach(), resolve(v)),
      (err: unknown) => (detach(), reject(err)),
    );
  });
}

/** Within this of 1, the estimate counts as exact for the server (measurement noise of the calibration). */
const PROMPT_SCALE_DEADBAND = 0.01;

export async function runCommand(spec: RunSpec, io: CliIo): Promise<number> {
  const apiKey = io.env[spec.target.api_key_env] || null;
  // Every line printed and every file written passes through it: no credential leaves the process.
  const redactor = Redactor.forTarget({ baseUrl: spec.target.base_url, apiKey, headers: spec.target.headers });
  try {
    return await runWithRedactor(spec, io, apiKey, redactor);
  } catch (err) {
    if (err instanceof UserError) throw new UserError(redactor.scrub(err.message));
    throw err;
  }
}

async function runWithRedactor(spec: RunSpec, io: CliIo, apiKey: string | null, redactor: Redactor): Promise<number> {
  const log = (line: string) => io.stderr.write(`${redactor.scrub(line)}\n`);
  const simulated = spec.target.base_url === null;
  let sim: SimServer | null = null;
  let dir: RunDir | null = null;
  let writer: RecordsWriter | null = null;
  // A signal before the load starts (planning, simulator start, pre-flight) ends the run there.
  const stoppedEarly = (): number => {
    log('interrupted before the load started: nothing was sent');
    return signalExitCode(io.signal);
  };
  try {
    // A server may keep an earlier run's prompts in its prefix cache: a fresh salt per run changes
    // the words (not the lengths or the schedule). spec.json records it, so a run can be replayed.
    if (!simulated && spec.workload.prompt_salt === null) spec.workload.prompt_salt = randomBytes(4).toString('hex');
    // Everything the user could have got wrong is checked before anything starts.
    const { workload, totalRequests, phases } = await planRun(spec, log);
    const cost = resolveCostInputs(spec.cost, simulated ? { gpus: spec.sim.tensor_parallel_size ?? 1, gpuType: spec.sim.hardware } : { gpus: null, gpuType: null });
    const load = spec.load;
    const replay = workload.timed ?? null;
    if (io.signal?.aborted) return stoppedEarly();

    let baseUrl = spec.target.base_url;
    let model = spec.target.model;
    let simulator: Record<string, unknown> | null = null;
    if (simulated) {
      const started = await startBuiltInSimulator(spec, workload);
      sim = started.server;
      baseUrl = sim.url;
      model = started.model;
      simulator = started.timing;
      if (io.signal?.aborted) return stoppedEarly();
      const shape = load.concurrency !== null ? `concurrency ${load.concurrency}` : `${Number.isFinite(load.request_rate) ? `${load.request_rate} req/s` : 'all at once'}`;
      log(`No --base-url: benchmarking the built-in simulated engine (${started.description}) at ${sim.url}`);
      log(`load: ${totalRequests ?? 'unbounded'} requests${load.duration_ms !== null ? ` for ${load.duration_ms / 1000} s` : ''}, ${shape} (change with --num-prompts, --request-rate, --concurrency, --duration)`);
    }
    const ignoreEos = spec.target.ignore_eos ?? defaultIgnoreEos(spec.workload, simulated);

    const coldStart = spec.observe.cold_start ? await ColdStartStep.wait(spec, baseUrl!, apiKey, io.signal, log) : null;
    let preflightInfo: Record<string, unknown> | null = null;
    let tokenScale = 1;
    let promptOverhead: number | null = null;
    if (spec.target.preflight) {
      const pf = await unlessAborted(
        preflight({ ...targetConfig(spec.target, { baseUrl: baseUrl!, apiKey, ignoreEos, keepText: false, countTokens: undefined }), model }, { log, calibrate: true }),
        io.signal,
      );
      if (pf === null) return stoppedEarly();
      model = pf.model;
      preflightInfo = { ...pf };
      coldStart?.firstResponse();
      log(`pre-flight ok: ${baseUrl}${spec.target.endpoint} serves ${pf.model}; probe TTFT ${pf.probe_ttft_ms?.toFixed(1) ?? '—'} ms; usage in stream: ${pf.usage_in_stream ? 'yes' : 'no'}`);
      checkContextLength(workload, pf.max_model_len, `${baseUrl} (${pf.model})`);
      const cal = pf.prompt_calibration;
      promptOverhead = cal?.overhead_tokens ?? null;
      // A tokenizer given is trusted; the estimate is scaled to the server's count.
      if (cal && !spec.workload.tokenizer && Math.abs(cal.tokens_per_estimated_token - 1) > PROMPT_SCALE_DEADBAND) {
        tokenScale = cal.tokens_per_estimated_token;
        log(`prompt lengths: the server counts ${tokenScale.toFixed(3)} tokens per estimated token (${cal.source === 'tokenize' ? 'its /tokenize' : 'usage of two probes'}); synthetic prompts are sized to its count (--tokenizer to use a tokenizer instead)`);
      }
    } else if (model === null) {
      throw new UserError('--model: required with --no-preflight');
    }
    // Said once everything checked out, just before the load: an error stays one line.
    if (!simulated) describePromptReuse(spec, log);

    if (io.signal?.aborted) return stoppedEarly();
    // Server-side series (docs/observe.md): a baseline scrape now, then one per interval, off the load threads.
    const observer = await RunObserver.start({ spec: spec.observe, baseUrl: baseUrl!, insecureTls: spec.target.tls_insecure, warn: log, envPath: io.env.PATH ?? process.env.PATH });
    let startedAt = new Date();
    let monotonicOrigin: string | null = null;
    if (spec.output.save) {
      dir = createRunDir(spec.output.result_dir, spec.name, startedAt);
      dir.writeJson('spec.json', redactor.scrubDeep(redactSecrets({ ...spec, target: { ...spec.target, base_url: simulated ? null : baseUrl, model } })));
      writer = new RecordsWriter(dir.recordsPath);
    }
    const progressFile = dir ? new ProgressFile(dir.path) : null;
    const progress = createProgressDisplay(resolveProgressMode(spec.output.progress, io.stderr), io.stderr, {
      title: `infermeter run: ${model} @ ${simulated ? `built-in simulator (${spec.target.endpoint})` : `${redactUrl(baseUrl!)}${spec.target.endpoint}`}`,
      burst: load.concurrency === null && !replay && load.request_rate === Infinity,
      ...(progressFile ? { onFrame: (f) => progressFile.append(f) } : {}),
    });
    // One core stays with the coordinator (records, progress, an in-process simulator): on 2 cores,
    // one worker kept the send lag far lower than two (docs/performance.md §4).
    const workers = load.workers ?? Math.max(1, availableParallelism() - 1);
    const jobFor = (offset: number, step: number): LoadJob => ({
      load,
      target: spec.target,
      workload: spec.workload,
      keepText: spec.output.keep_text,
      baseUrl: baseUrl!,
      model: model!,
      apiKey,
      ignoreEos,
      tokenScale,
      totalRequests,
      phases,
      shard: { offset, step },
      warn: false,
    });
    const mainElu0 = performance.eventLoopUtilization();
    const outcome = await runPool(jobFor, workers, {
      onRecord: (rec) => {
        writer?.write(rec);
        progress.record(rec);
      },
      onProgress: (p) => progress.update(p),
      onStart: (originNs) => {
        startedAt = new Date();
        monotonicOrigin = originNs;
        observer?.setOrigin(originNs, startedAt.getTime());
      },
      ...(io.signal ? { signal: io.signal } : {}),
    });
    const mainElu = performance.eventLoopUtilization(mainElu0).utilization;
    progress.finish();
    writer?.close();
    writer = null;
    if (outcome.interrupted) log('interrupted: in-flight requests cancelled; reporting what was measured');
    const span = measuredWindow(measureRecords(outcome.records));
    const observed = observer ? await observer.finish(span?.start_ms ?? 0, span?.end_ms ?? 0) : null;
    if (observed && dir) dir.writeJsonLines('server-metrics.jsonl', observed.snapshots);

    const code = finishRun({
      spec,
      io,
      dir,
      records: outcome.records,
      run: { name: spec.name, started_at: startedAt.toISOString(), ended_at: new Date().toISOString(), interrupted: outcome.interrupted, driver: 'http', monotonic_origin_ns: monotonicOrigin },
      target: { base_url: simulated ? null : redactUrl(baseUrl!), endpoint: spec.target.endpoint, model: model!, simulated, simulator, stream: spec.target.stream },
      load: describeLoad(load, { trace: replay !== null, numPrompts: totalRequests, ignoreEos }),
      workload: workload.describe(),
      health: {
        dispatchLagMs: outcome.dispatchLagMs,
        eventLoopDelayP99Ms: outcome.eventLoopDelayP99Ms,
        // With an in-process simulator and no workers the main thread also serves the simulator, so its busy time is not all the client's.
        eventLoopUtilization: outcome.eventLoopUtilization,
        burst: load.concurrency === null && !replay && load.request_rate === Infinity,
      },
      client: {
        workers,
        busy_poll: load.busy_poll,
        preconnected: outcome.preconnected,
        stale_socket_retries: outcome.staleSocketRetries,
        event_loop_utilization: outcome.eventLoopUtilization,
        main_thread_event_loop_utilization: mainElu,
        preflight: preflightInfo,
      },
      ignoreEos,
      clientTokenizer: spec.workload.tokenizer ? 'tokenizer' : 'estimate',
      promptOverheadTokens: promptOverhead,
      tokenizerId: spec.workload.tokenizer,
      redactor,
      cost,
      server: observed?.observation ?? null,
      coldStart: coldStart?.result(outcome.records) ?? null,
    });
    await recordInHistory(spec.output.result_dir, dir, io);
    return code;
  } finally {
    writer?.close();
    await sim?.close();
  }
}
