/**
 * `infermeter worker --nats nats://… [--index I]`: one worker process of a distributed run or
 * sweep. It loads the same spec as the coordinator (same --config and flags: the spec hashes must
 * match), joins, and sends its share — request k when k mod N is its index — through the ordinary
 * worker pool, streaming every record to the coordinator over JetStream. In a sweep it stays
 * connected and runs each stage the coordinator announces, until the coordinator says "end".
 */
import { availableParallelism } from 'node:os';
import { UserError } from '../errors/user-error.js';
import { EXIT_CODES } from '../errors/exit-codes.js';
import { NatsLink } from '../distributed/nats-link.js';
import { nodeRequestCount, nodeShard, type Node } from '../distributed/partition.js';
import { WorkerSession } from '../distributed/worker-session.js';
import type { LoadJob } from '../runner/load-job.js';
import { shardShare } from '../runner/shard.js';
import { runPool } from '../runner/worker-pool.js';
import { threadsFor } from '../session/drive-load.js';
import { Redactor } from '../util/redact.js';
import type { WorkerFlags } from './distributed-flags.js';
import { distributedHashes, stageLoadOf } from '../session/distributed-spec.js';
import type { CliIo } from './io.js';
import { infermeterVersion } from '../session/version.js';
import { prepareRun } from '../session/prepare-run.js';
import { shareCapacityCheck } from '../session/capacity-gate.js';
import { signalExitCode } from './signals.js';
import { DIRECT, type ProxySettings } from '../util/proxy.js';
import { proxyOf } from '../session/context.js';
import type { RunSpec } from '../session/run-spec.js';
import { answerEvaluation, finishAnswerChecks } from '../session/answer-checks.js';
import { stageSpec } from '../session/sweep-stages.js';
import { clientFingerprint } from '../session/client-host.js';
import { startClientMetricsServer, type ClientMetricsServer } from '../session/client-metrics-server.js';
import type { ClientMetrics } from '../session/client-metrics.js';
import { PROBE_TIMEOUT_MS } from '../session/environment-capture.js';

export async function workerCommand(spec: RunSpec, flags: WorkerFlags, io: CliIo): Promise<number> {
  const apiKey = io.env[spec.target.api_key_env] || null;
  // This host's HTTP(S)_PROXY / --proxy for the server; the coordinator's simulator (no --base-url) is never proxied.
  const proxy = spec.target.base_url === null ? DIRECT : proxyOf({ env: io.env, ...(io.proxy !== undefined ? { proxy: io.proxy } : {}) });
  const redactor = Redactor.forTarget({ baseUrl: spec.target.base_url, apiKey, headers: spec.target.headers, proxy });
  const log = (line: string) => io.stderr.write(`${redactor.scrub(line)}\n`);
  const node = flags.index;
  const hashes = distributedHashes(spec);
  // The same checks as the coordinator's, before joining: a bad spec fails here, not mid-run.
  const plan = await prepareRun(spec, () => {});
  const threads = spec.load.workers ?? Math.max(1, availableParallelism() - 1);
  const link = await NatsLink.open(flags.natsUrl, flags.runId, { name: `infermeter worker ${node}`, flag: '--nats', waitMs: flags.waitMs, log, ...(io.signal ? { signal: io.signal } : {}) });
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  io.signal?.addEventListener('abort', onSignal);
  let session: WorkerSession | null = null;
  let served: ClientMetricsServer | null = null;
  try {
    // --metrics-port: this worker's own client metrics, for as long as it is connected (every stage of a sweep on one page).
    served = spec.observe.metrics_port ? await startClientMetricsServer(spec.observe.metrics_port, log) : null;
    if (served) log(`worker ${node}: client metrics at ${served.url}`);
    const metrics = served?.metrics ?? null;
    // This machine, as result.json records the client host (bounded; never fails the worker).
    const host = await clientFingerprint(PROBE_TIMEOUT_MS).then((f) => ({ ...f.client }), () => null);
    session = await WorkerSession.join(link, {
      node,
      client: host,
      specHash: hashes.spec,
      stageHash: hashes.stage,
      version: infermeterVersion(),
      threads,
      waitMs: flags.waitMs,
      log,
      onAbort: (reason) => {
        log(`worker ${node}: the coordinator says stop: ${reason}`);
        stop.abort();
      },
    });
    const s = session;
    const { workers } = s.joined;
    s.startBeats();
    if (!s.joined.sweep) {
      log(`worker ${node} of ${workers} joined run ${flags.runId}: ${nodeRequestCount({ index: node, count: workers }, plan.totalRequests) ?? 'a timed share of the'} requests to ${s.joined.target.model}`);
      // Before its ready report: can this machine drive its share? (Said, not refused: the run is in its barrier.)
      await shareCapacityCheck(spec, plan.workload, { index: node, count: workers }, threads, log);
      const stage = await runStage(spec, { index: node, count: workers }, 0, s, { apiKey, proxy, threads, log, signal: stop.signal, metrics });
      if (!stage.started) throw new UserError(`worker ${node}: the run was stopped before it started: ${s.aborted ?? 'interrupted'}`);
      log(`worker ${node}: done, ${stage.published} records streamed to the coordinator${stage.interrupted ? ' (interrupted)' : ''}`);
      return io.signal?.aborted ? signalExitCode(io.signal) : EXIT_CODES.OK;
    }
    log(`worker ${node} of ${workers} joined sweep ${flags.runId}: each stage's load comes from the coordinator`);
    // Each stage's salt derives from the coordinator's, as the coordinator's does (stageSpec).
    spec.workload.prompt_salt = spec.workload.prompt_salt ?? s.joined.target.prompt_salt;
    for (let k = 0; ; k++) {
      const announced = await s.nextStage(k, flags.waitMs);
      if (announced === null) break;
      const slot = announced.nodes.indexOf(node);
      if (slot < 0) {
        // A closed-loop stage with fewer users than workers: this one has none, so no share.
        log(`worker ${node}: no share in stage ${k + 1} (${announced.nodes.length} of the workers run it)`);
        continue;
      }
      const staged = stageSpec(spec, stageLoadOf(announced.load), k);
      const share = { index: slot, count: announced.nodes.length };
      const stage = await runStage(staged, share, k, s, { apiKey, proxy, threads, log, signal: stop.signal, metrics });
      if (!stage.started || s.aborted !== null) break;
      log(`worker ${node}: stage ${k + 1} done, ${stage.published} records streamed to the coordinator`);
    }
    if (s.aborted !== null) throw new UserError(`worker ${node}: the sweep was stopped: ${s.aborted}`);
    log(`worker ${node}: the sweep is over`);
    return io.signal?.aborted ? signalExitCode(io.signal) : EXIT_CODES.OK;
  } finally {
    io.signal?.removeEventListener('abort', onSignal);
    session?.close();
    await served?.close();
    await link.close();
  }
}

/** One stage (a run is stage 0) on this worker: its share of `spec`'s load, every record streamed, then "done". */
async function runStage(
  spec: RunSpec,
  share: Node,
  stage: number,
  s: WorkerSession,
  o: { apiKey: string | null; proxy: ProxySettings; threads: number; log: (line: string) => void; signal: AbortSignal; metrics: ClientMetrics | null },
): Promise<{ started: boolean; published: number; interrupted: boolean }> {
  const plan = await prepareRun(spec, () => {});
  const { target } = s.joined;
  const workload = { ...spec.workload, prompt_salt: spec.workload.prompt_salt ?? target.prompt_salt };
  const jobFor = (offset: number, step: number): LoadJob => ({
    load: spec.load,
    target: spec.target,
    workload,
    keepText: spec.output.keep_text,
    baseUrl: target.base_url,
    model: target.model,
    apiKey: o.apiKey,
    proxy: o.proxy,
    ignoreEos: target.ignore_eos,
    tokenScale: target.token_scale,
    totalRequests: plan.totalRequests,
    phases: plan.phases,
    // runPool numbers its threads (offset of step); the run-wide shard composes them with this worker's share.
    shard: nodeShard(share, offset, step),
    warn: false,
  });
  let started = false;
  // This worker's users, when the loop is closed: never more threads than users.
  const threads = spec.load.concurrency === null ? o.threads : threadsFor({ ...spec.load, concurrency: shardShare({ offset: share.index, step: share.count }, spec.load.concurrency) }, o.threads);
  // Answers are judged on this node, off its load threads, before the records are streamed.
  const checks = answerEvaluation(threads, (rec) => s.record(rec));
  // A sweep stage the coordinator stops early (an SLO it can no longer meet) ends here too.
  const stageStop = new AbortController();
  s.onStageStop(stage, () => stageStop.abort());
  const outcome = await runPool(jobFor, threads, {
    onRecord: (rec, check) => {
      rec.stage = stage;
      o.metrics?.record(rec);
      checks.accept(rec, check);
    },
    onProgress: (p) => {
      o.metrics?.progress(p);
      s.progress(p);
    },
    signal: AbortSignal.any([o.signal, stageStop.signal]),
    startAt: async () => {
      const origin = await s.readyAndWaitForStart(stage);
      started = s.aborted === null;
      if (started) o.log(`worker ${s.node}: ${s.joined.sweep ? `stage ${stage + 1} ` : ''}started (clock offset to the coordinator ${s.clock!.offset_ms.toFixed(2)} ms, round trip ${s.clock!.rtt_ms.toFixed(2)} ms)`);
      return origin;
    },
  });
  if (!started) return { started, published: 0, interrupted: true };
  await finishAnswerChecks(checks, o.log);
  const published = await s.finish(
    {
      stage,
      interrupted: outcome.interrupted,
      event_loop_delay_p99_ms: outcome.eventLoopDelayP99Ms,
      event_loop_utilization: outcome.eventLoopUtilization,
      stale_socket_retries: outcome.staleSocketRetries,
      preconnected: outcome.preconnected,
      threads,
      error: s.aborted,
    },
    outcome.dispatchLagMs,
  );
  return { started, published, interrupted: outcome.interrupted };
}
