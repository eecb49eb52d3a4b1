/**
 * `infermeter run`: spec → (simulator) → pre-flight → workload → load → records → report.
 */
import { UserError } from '../errors/user-error.js';
import { RecordsWriter } from '../store/records-file.js';
import { createRunDir, type RunDir } from '../store/run-dir.js';
import { Redactor, redactSecrets, redactUrl } from '../util/redact.js';
import { createProgressDisplay, resolveProgressMode } from '../report/progress-display.js';
import { finishRun } from '../session/finish-run.js';
import { RunObserver } from '../observe/run-observer.js';
import { measureRecords, measuredWindow } from '../metrics/index.js';
import { ProgressFile } from '../store/progress-file.js';
import { recordInHistory } from '../session/record-history.js';
import type { CliIo } from './io.js';
import { describeLoad, planRun } from '../session/run-plan.js';
import type { RunSpec } from '../session/run-spec.js';
import { resolveCostInputs } from '../session/cost-inputs.js';
import { signalExitCode } from './signals.js';
import { clientOf, driveLoad, healthOf } from '../session/drive-load.js';
import { openTarget, saltPrompts, type OpenTarget } from '../session/run-target.js';
import { answerEvaluation, finishAnswerChecks } from '../session/answer-checks.js';

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
  let target: OpenTarget | null = null;
  let dir: RunDir | null = null;
  let writer: RecordsWriter | null = null;
  // A signal before the load starts (planning, simulator start, pre-flight) ends the run there.
  const stoppedEarly = (): number => {
    log('interrupted before the load started: nothing was sent');
    return signalExitCode(io.signal);
  };
  try {
    saltPrompts(spec);
    // Everything the user could have got wrong is checked before anything starts.
    const { workload, totalRequests, phases } = await planRun(spec, log);
    const simulated = spec.target.base_url === null;
    const cost = resolveCostInputs(spec.cost, simulated ? { gpus: spec.sim.tensor_parallel_size ?? 1, gpuType: spec.sim.hardware } : { gpus: null, gpuType: null });
    const load = spec.load;
    const replay = workload.timed ?? null;
    if (io.signal?.aborted) return stoppedEarly();

    const shape = load.concurrency !== null ? `concurrency ${load.concurrency}` : `${Number.isFinite(load.request_rate) ? `${load.request_rate} req/s` : 'all at once'}`;
    const loadLine = `load: ${totalRequests ?? 'unbounded'} requests${load.duration_ms !== null ? ` for ${load.duration_ms / 1000} s` : ''}, ${shape} (change with --num-prompts, --request-rate, --concurrency, --duration)`;
    target = await openTarget(spec, workload, apiKey, log, loadLine, io.signal);
    if (target === null) return stoppedEarly();
    const { baseUrl, model } = target;

    // Server-side series (docs/observe.md): a baseline scrape now, then one per interval, off the load threads.
    const observer = await RunObserver.start({ spec: spec.observe, baseUrl, insecureTls: spec.target.tls_insecure, warn: log, envPath: io.env.PATH ?? process.env.PATH });
    if (spec.output.save) {
      dir = createRunDir(spec.output.result_dir, spec.name, new Date());
      dir.writeJson('spec.json', redactor.scrubDeep(redactSecrets({ ...spec, target: { ...spec.target, base_url: simulated ? null : baseUrl, model } })));
      writer = new RecordsWriter(dir.recordsPath);
    }
    const progressFile = dir ? new ProgressFile(dir.path) : null;
    const progress = await createProgressDisplay(resolveProgressMode(spec.output.progress, io.stderr), io.stderr, {
      title: `infermeter run: ${model} @ ${simulated ? `built-in simulator (${spec.target.endpoint})` : `${redactUrl(baseUrl)}${spec.target.endpoint}`}`,
      burst: load.concurrency === null && !replay && load.request_rate === Infinity,
      ...(progressFile ? { onFrame: (f) => progressFile.append(f) } : {}),
    });
    // Checked requests' answers are judged on this thread, off the load's dispatch loop, before their records are written.
    const checks = answerEvaluation(load.workers ?? 1, (rec) => {
      writer?.write(rec);
      if (rec.quality) progress.judged(rec);
    });
    const driven = await driveLoad(spec, target, { totalRequests, phases }, {
      onRecord: (rec, check) => {
        checks.accept(rec, check);
        progress.record(rec);
      },
      onProgress: (p) => progress.update(p),
      onStart: (originNs, startedAt) => observer?.setOrigin(originNs, startedAt.getTime()),
      log,
      ...(io.signal ? { signal: io.signal } : {}),
    });
    const outcome = driven.outcome;
    progress.finish();
    await finishAnswerChecks(checks, log);
    writer?.close();
    writer = null;
    if (outcome.interrupted) log('interrupted: in-flight requests cancelled; reporting what was measured');
    const span = measuredWindow(measureRecords(outcome.records));
    const observed = observer ? await observer.finish(span?.start_ms ?? 0, span?.end_ms ?? 0) : null;
    if (observed && dir) dir.writeJsonLines('server-metrics.jsonl', observed.snapshots);

    const code = await finishRun({
      spec,
      io,
      dir,
      records: outcome.records,
      run: { name: spec.name, started_at: driven.startedAt.toISOString(), ended_at: new Date().toISOString(), interrupted: outcome.interrupted, driver: 'http', monotonic_origin_ns: driven.monotonicOrigin },
      target: target.describe(),
      load: describeLoad(load, { trace: replay !== null, numPrompts: totalRequests, ignoreEos: target.ignoreEos }),
      workload: workload.describe(),
      health: healthOf(spec, driven, replay !== null),
      client: clientOf(spec, driven, target),
      ignoreEos: target.ignoreEos,
      clientTokenizer: spec.workload.tokenizer ? 'tokenizer' : 'estimate',
      promptOverheadTokens: target.promptOverheadTokens,
      promptPerMessageTokens: target.promptPerMessageTokens,
      tokenizerId: spec.workload.tokenizer,
      redactor,
      cost,
      server: observed?.observation ?? null,
      coldStart: target.coldStart?.result(outcome.records) ?? null,
    });
    await recordInHistory(spec.output.result_dir, dir, io);
    return code;
  } finally {
    writer?.close();
    await target?.close();
  }
}
