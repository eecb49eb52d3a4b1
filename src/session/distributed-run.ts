/**
 * `infermeter run --distributed nats://… --workers-expected N`: the coordinator. It sends nothing
 * itself: it checks the spec, opens the target (pre-flight, or the built-in simulator), waits for
 * N workers at the start barrier, broadcasts the start, writes the records the workers stream
 * through JetStream into one run directory, and computes the figures from them exactly as `run`
 * does. Restarted with the same --run-id while the run's stream exists, it resumes instead.
 */
import { checkRunBounds } from './run-bounds.js';
import { rmSync } from 'node:fs';
import { UserError } from '../errors/user-error.js';
import { Coordinator, type JoinedNode } from '../distributed/coordinator.js';
import { NatsLink } from '../distributed/nats-link.js';
import { finishedRun, storeRunDir } from '../distributed/results-store.js';
import type { RunState, TargetInfo } from '../distributed/protocol.js';
import type { RequestRecord } from '../record/record.js';
import type { RunResult } from '../report/result-json.js';
import { closeRecords, RecordsWriter } from '../store/records-file.js';
import { createRunDir, makeDirs, openRunDir, type RunDir } from '../store/run-dir.js';
import type { Redactor} from '../util/redact.js';
import { redactSecrets, redactUrl } from '../util/redact.js';
import { fetchHint, type CoordinatorFlags } from './coordinator-options.js';
import { distributedHashes } from './distributed-spec.js';
import { ledgerClient, ledgerHealth, nodesSection, originAt } from './distributed-figures.js';
import { completeRun, runExitCode } from './finish-run.js';
import type { RunLedger } from '../distributed/ledger.js';
import { measureLoad } from './measure.js';
import { captureTargetEnvironment } from './environment-capture.js';
import type { ClientFingerprint, RunEnvironment, WorkerHost } from '../analysis/environment.js';
import { envOf, type SessionContext } from './context.js';
import { runRedactor, type RunSessionOutcome } from './run.js';
import { RunObserver } from '../observe/run-observer.js';
import { infermeterVersion } from './version.js';
import { recordInHistory } from './record-history.js';
import { describeLoad, prepareRun } from './prepare-run.js';
import { specInputUnit, type RunSpec } from './run-spec.js';
import { openTarget, saltPrompts, type OpenTarget } from './run-target.js';
import { DIRECT, type ProxySettings } from '../util/proxy.js';

export async function distributedRunSession(spec: RunSpec, flags: CoordinatorFlags, ctx: SessionContext = {}): Promise<RunSessionOutcome> {
  const { redactor, apiKey, proxy } = runRedactor(spec, ctx);
  const log = (line: string) => ctx.log?.(redactor.scrub(line));
  const simulated = spec.target.base_url === null;
  if (spec.load.concurrency !== null && spec.load.concurrency < flags.workers) {
    throw new UserError(`--concurrency ${spec.load.concurrency}: below --workers-expected ${flags.workers}, some workers would have no user and their share of the requests would never be sent; give at least one user per worker`);
  }
  // Traces are joined in one process today; a distributed run would silently drop the flags.
  const traceFlags = [spec.observe.otlp_receiver ? '--otlp-receiver' : null, spec.observe.spans_file ? '--spans' : null, spec.observe.otlp_forward ? '--otlp-forward' : null].filter((f) => f !== null);
  if (traceFlags.length > 0) {
    throw new UserError(`${traceFlags.join(', ')}: not supported with --distributed yet (spans are joined by a single-process run); run without them, or join the spans afterwards with \`infermeter analyze RUN --spans FILE\``);
  }
  // Hashed as the workers hash it: before the coordinator picks the prompt salt it hands them.
  const hash = distributedHashes(spec).spec;
  const plan = await prepareRun(spec, log);
  checkRunBounds(spec, plan, { held: 'objects', warn: log, freeSpace: ctx.freeSpace });
  const link = await NatsLink.open(flags.natsUrl, flags.runId, { name: `infermeter coordinator ${flags.runId}`, flag: '--distributed', waitMs: flags.workerWaitMs, log, ...(ctx.signal ? { signal: ctx.signal } : {}) });
  let target: OpenTarget | null = null;
  let coordClose: (() => void) | null = null;
  try {
    const coord = new Coordinator({ link, runId: flags.runId, workers: flags.workers, specHash: hash, version: infermeterVersion(), log, ...(ctx.signal ? { signal: ctx.signal } : {}) });
    coordClose = () => coord.close();
    const finished = flags.storeResults ? await finishedRun(link, flags.runId) : null;
    if (finished) {
      // A coordinator started again after the end (a retried pod): the workers are gone, the verdict stands.
      log(`run ${flags.runId} finished already at ${finished.finished_at} (exit ${finished.exit_code}): nothing is sent again; its results: ${fetchHint(flags)} (a new run needs another --run-id)`);
      // Its result again, so the exit code is the run's own.
      return { started: true, result: finished.result as unknown as RunResult, records: [], dir: null, reportPath: null, allowInvalid: spec.validity.allow_invalid, redactor };
    }
    let prior = (await link.streamExists()) ? await link.lastOn<RunState>(link.subjects.state) : null;
    if (prior?.kind === 'sweep') {
      log(`--run-id ${flags.runId}: NATS holds an unfinished sweep under this id; sweeps are not resumed, so it is dropped`);
      prior = null;
    }
    if (prior) {
      if (prior.spec_hash !== hash || prior.workers !== flags.workers) {
        throw new UserError(`--run-id ${flags.runId}: NATS holds an unfinished run under this id with another spec or worker count (hash ${prior.spec_hash}, ${prior.workers} workers); give another --run-id`);
      }
      log(`resuming run ${flags.runId}: a coordinator restarted; re-reading every record from the stream ${link.stream}`);
      // A coordinator rescheduled to a fresh pod finds no directory: it makes it again.
      if (prior.run_dir && spec.output.save) makeDirs(prior.run_dir);
      const dir = prior.run_dir && spec.output.save ? openRunDir(prior.run_dir) : null;
      const savedSpec = redactor.scrubDeep(redactSecrets({ ...spec, workload: { ...spec.workload, prompt_salt: prior.target.prompt_salt }, target: { ...spec.target, base_url: simulated ? null : prior.target.base_url, model: prior.target.model } }));
      if (dir) {
        rmSync(dir.recordsPath, { force: true });
        dir.writeJson('spec.json', savedSpec);
      }
      // What the server did before the restart is not scraped again (a --prometheus-url has it all).
      const observer = await observeServer(spec, ctx, prior.target.base_url, log, simulated ? DIRECT : proxy);
      observer?.setOrigin(originAt(prior.start_at_ms), prior.start_at_ms);
      return await collectAndFinish({ spec, ctx, log, flags, coord, link, dir, state: prior, plan, redactor, target: null, resumed: true, savedSpec, environment: null }, observer);
    }
    // A stream without a state never started: what it holds belongs to no run.
    await link.deleteStream();
    await link.ensureStream();
    saltPrompts(spec);
    target = await openTarget(spec, plan.workload, apiKey, log, `the built-in simulator listens on 127.0.0.1: the workers must run on this machine (give --base-url for workers elsewhere)`, ctx.signal, { proxy });
    if (target === null) {
      log('interrupted before the load started: nothing was sent');
      return { started: false, redactor };
    }
    // Every worker sizes prompts by the coordinator's pre-flight calibration, as one process would.
    const info: TargetInfo = { base_url: target.baseUrl, model: target.model, token_scale: target.tokenScale, ignore_eos: target.ignoreEos, prompt_salt: spec.workload.prompt_salt };
    log(`waiting for ${flags.workers} workers on ${redactUrl(flags.natsUrl)} (run id ${flags.runId}, spec hash ${hash}): infermeter worker --nats ${redactUrl(flags.natsUrl)} --run-id ${flags.runId} --index I …`);
    const nodes: JoinedNode[] = await coord.barrier(info, flags.workerWaitMs);
    const startedAt = new Date();
    let dir: RunDir | null = null;
    const savedSpec = redactor.scrubDeep(redactSecrets({ ...spec, target: { ...spec.target, base_url: simulated ? null : target.baseUrl, model: target.model } }));
    if (spec.output.save) {
      dir = createRunDir(spec.output.result_dir, spec.name, startedAt);
      dir.writeJson('spec.json', savedSpec);
    }
    const partial: Omit<RunState, 'start_at_ms'> = { kind: 'run', spec_hash: hash, workers: flags.workers, started_at: startedAt.toISOString(), run_dir: dir?.path ?? null, target: info, describe: target.describe() as unknown as Record<string, unknown>, nodes };
    // The coordinator's host is the client side; each worker's host is beside it (environment.workers).
    const environment = withWorkerHosts(await captureTargetEnvironment(spec, target, ctx), nodes);
    const observer = await observeServer(spec, ctx, target.baseUrl, log, target.proxy);
    const state: RunState = { ...partial, start_at_ms: await coord.start(0, flags.startDelayMs, partial) };
    observer?.setOrigin(originAt(state.start_at_ms), state.start_at_ms);
    return await collectAndFinish({ spec, ctx, log, flags, coord, link, dir, state, plan, redactor, target, resumed: false, savedSpec, environment }, observer);
  } finally {
    coordClose?.();
    await target?.close();
    await link.close();
  }
}

/** The environment with each joined worker's client host (Hello.client), by node. */
export function withWorkerHosts(env: RunEnvironment, nodes: readonly JoinedNode[]): RunEnvironment {
  const workers: WorkerHost[] = [...nodes].sort((a, b) => a.node - b.node).map((n) => ({ node: n.node, host: n.host ?? null, client: (n.client as ClientFingerprint | null | undefined) ?? null }));
  return { ...env, workers };
}

interface Collecting {
  spec: RunSpec;
  ctx: SessionContext;
  log: (line: string) => void;
  flags: CoordinatorFlags;
  coord: Coordinator;
  link: NatsLink;
  dir: RunDir | null;
  state: RunState;
  plan: Awaited<ReturnType<typeof prepareRun>>;
  redactor: Redactor;
  target: OpenTarget | null;
  resumed: boolean;
  /** spec.json as written, for the history row. */
  savedSpec: unknown;
  /** Captured before the start; null for a coordinator that resumed a run (it did not see the target opened). */
  environment: RunEnvironment | null;
}

/**
 * The server's side, observed by the coordinator alone around the whole run (workers never
 * scrape): a baseline scrape before the start, then one per interval until the last record is in.
 */
function observeServer(spec: RunSpec, ctx: SessionContext, baseUrl: string, log: (line: string) => void, proxy: ProxySettings): Promise<RunObserver | null> {
  return RunObserver.start({ spec: spec.observe, baseUrl, insecureTls: spec.target.tls_insecure, proxy, warn: log, envPath: envOf(ctx).PATH });
}

async function collectAndFinish(c: Collecting, observer: RunObserver | null): Promise<RunSessionOutcome> {
  const { spec, state } = c;
  if (c.resumed) c.coord.refuseJoins(state.start_at_ms);
  const writer = c.dir ? new RecordsWriter(c.dir.recordsPath, { survive: true }) : null;
  let measured;
  try {
    measured = await measureLoad({
      spec,
      baseUrl: state.target.base_url,
      ctx: c.ctx,
      log: c.log,
      // Answers are judged on the workers: their records arrive with the verdict.
      threads: 1,
      observer,
      view: { title: `infermeter run (distributed, ${state.workers} workers): ${state.target.model}`, burst: spec.load.concurrency === null && spec.load.request_rate === Infinity },
      drive: async (hooks) => {
        const records: RequestRecord[] = [];
        const got = await c.coord.collect({
          stage: 0,
          nodes: Array.from({ length: state.workers }, (_, i) => i),
          totalRequests: c.plan.totalRequests,
          onRecord: (rec) => {
            records.push(rec);
            hooks.onRecord(rec);
          },
          onProgress: hooks.onProgress,
          workerTimeoutMs: c.flags.workerTimeoutMs,
        });
        return { records, interrupted: got.interrupted, ledger: got.ledger };
      },
      sink: (rec) => writer?.write(rec),
    });
  } catch (err) {
    writer?.close();
    throw err;
  }
  const { driven, observed } = measured;
  const { ledger, interrupted, records } = driven;
  // A full or read-only folder: the figures still come from the records in memory; nothing more is written there.
  const diskFault = closeRecords(writer, c.dir?.path ?? null, { records: records.length });
  const dir = diskFault ? null : c.dir;
  if (observed && dir) dir.writeJsonLines('server-metrics.jsonl', observed.snapshots);
  const health = ledgerHealth(ledger, spec.load.concurrency === null && spec.load.request_rate === Infinity);
  const sums = ledgerClient(ledger);
  const done = await completeRun({
    spec,
    inputUnit: specInputUnit(spec.target),
    dir,
    records,
    run: { name: spec.name, started_at: state.started_at, ended_at: new Date().toISOString(), interrupted, driver: 'http', monotonic_origin_ns: null },
    target: state.describe as unknown as RunResult['target'],
    load: describeLoad(spec.load, { trace: c.plan.workload.timed !== undefined, numPrompts: c.plan.totalRequests, ignoreEos: state.target.ignore_eos }),
    workload: c.plan.workload.describe(),
    health,
    client: {
      workers: sums.workers,
      busy_poll: spec.load.busy_poll,
      preconnected: sums.preconnected,
      stale_socket_retries: sums.stale_socket_retries,
      event_loop_utilization: health.eventLoopUtilization,
      preflight: c.target?.preflight ?? null,
      distributed: distributedSection(c, ledger),
    },
    ignoreEos: state.target.ignore_eos,
    clientTokenizer: spec.workload.tokenizer ? 'tokenizer' : 'estimate',
    tokenizerId: spec.workload.tokenizer,
    redactor: c.redactor,
    incomplete: ledger.incomplete(),
    server: observed?.observation ?? null,
    coldStart: c.target?.coldStart?.result(records) ?? null,
    environment: c.environment,
    promptOverheadTokens: c.target?.promptOverheadTokens ?? null,
    promptPerMessageTokens: c.target?.promptPerMessageTokens ?? null,
  });
  if (!diskFault) await recordInHistory(spec.output.result_dir, dir, c.log, { result: done.result, spec: c.savedSpec });
  if (c.flags.storeResults) {
    // Before the stream goes: a coordinator killed while storing resumes the run and stores it again.
    const stored = await storeRunDir(c.link, c.flags.runId, dir?.path ?? null, done.result, runExitCode(done.result, done.allowInvalid, undefined));
    c.log(`results stored on NATS (${stored.files} files, ${stored.bytes} bytes): ${fetchHint(c.flags)}`);
  }
  // The run is written: its stream is no longer needed (a restart now starts a new run).
  await c.link.deleteStream();
  return { started: true, ...done, redactor: c.redactor, ...(diskFault ? { diskFault } : {}) };
}


/** result.json's client.distributed: each worker's host, clock offset, share and health. */
function distributedSection(c: Collecting, ledger: RunLedger): Record<string, unknown> {
  return {
    run_id: c.flags.runId,
    nats_url: redactUrl(c.flags.natsUrl),
    workers: c.state.workers,
    start_at: new Date(c.state.start_at_ms).toISOString(),
    resumed: c.resumed,
    nodes: nodesSection(ledger, c.state.nodes),
  };
}
