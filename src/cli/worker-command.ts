/**
 * `infermeter worker --nats nats://… [--index I]`: one worker process of a distributed run. It
 * loads the same spec as the coordinator (same --config and flags: the spec hashes must match),
 * joins, and sends its share — request k of the run when k mod N is its index — through the
 * ordinary worker pool, streaming every record to the coordinator over JetStream.
 */
import { availableParallelism } from 'node:os';
import { UserError } from '../errors/user-error.js';
import { EXIT_CODES } from '../errors/exit-codes.js';
import { NatsLink } from '../distributed/nats-link.js';
import { nodeRequestCount, nodeShard } from '../distributed/partition.js';
import { WorkerSession } from '../distributed/worker-session.js';
import { specHash } from '../history/spec-hash.js';
import type { LoadJob } from '../runner/load-job.js';
import { runPool } from '../runner/worker-pool.js';
import { Redactor } from '../util/redact.js';
import type { WorkerFlags } from './distributed-flags.js';
import { infermeterVersion, type CliIo } from './io.js';
import { planRun } from './run-plan.js';
import { signalExitCode } from './signals.js';
import type { RunSpec } from './run-spec.js';
import { answerEvaluation, finishAnswerChecks } from './answer-checks.js';

export async function workerCommand(spec: RunSpec, flags: WorkerFlags, io: CliIo): Promise<number> {
  const apiKey = io.env[spec.target.api_key_env] || null;
  const redactor = Redactor.forTarget({ baseUrl: spec.target.base_url, apiKey, headers: spec.target.headers });
  const log = (line: string) => io.stderr.write(`${redactor.scrub(line)}\n`);
  const node = flags.index;
  const hash = specHash(spec, { simulated: spec.target.base_url === null, driver: 'http' });
  // The same checks as the coordinator's, before joining: a bad spec fails here, not mid-run.
  const plan = await planRun(spec, () => {});
  const threads = spec.load.workers ?? Math.max(1, availableParallelism() - 1);
  const link = await NatsLink.open(flags.natsUrl, flags.runId, { name: `infermeter worker ${node}`, flag: '--nats', waitMs: flags.waitMs });
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  io.signal?.addEventListener('abort', onSignal);
  let session: WorkerSession | null = null;
  try {
    session = await WorkerSession.join(link, {
      node,
      specHash: hash,
      version: infermeterVersion(),
      threads,
      waitMs: flags.waitMs,
      log,
      onAbort: (reason) => {
        log(`worker ${node}: the coordinator says stop: ${reason}`);
        stop.abort();
      },
    });
    const { target, workers } = session.joined;
    log(`worker ${node} of ${workers} joined run ${flags.runId}: ${nodeRequestCount({ index: node, count: workers }, plan.totalRequests) ?? 'a timed share of the'} requests to ${target.model}`);
    const workload = { ...spec.workload, prompt_salt: spec.workload.prompt_salt ?? target.prompt_salt };
    const jobFor = (offset: number, step: number): LoadJob => ({
      load: spec.load,
      target: spec.target,
      workload,
      keepText: spec.output.keep_text,
      baseUrl: target.base_url,
      model: target.model,
      apiKey,
      ignoreEos: target.ignore_eos,
      tokenScale: target.token_scale,
      totalRequests: plan.totalRequests,
      phases: plan.phases,
      // runPool numbers its threads (offset of step); the run-wide shard composes them with this worker's index.
      shard: nodeShard({ index: node, count: workers }, offset, step),
      warn: false,
    });
    const s = session;
    s.startBeats();
    let started = false;
    // Answers are judged on this node, off its load threads, before the records are streamed.
    const checks = answerEvaluation(threads, (rec) => s.record(rec));
    const outcome = await runPool(jobFor, threads, {
      onRecord: (rec, check) => checks.accept(rec, check),
      onProgress: (p) => s.progress(p),
      signal: stop.signal,
      startAt: async () => {
        const origin = await s.readyAndWaitForStart();
        started = s.aborted === null;
        if (started) log(`worker ${node}: started (clock offset to the coordinator ${s.clock!.offset_ms.toFixed(2)} ms, round trip ${s.clock!.rtt_ms.toFixed(2)} ms)`);
        return origin;
      },
    });
    if (!started) throw new UserError(`worker ${node}: the run was stopped before it started: ${s.aborted ?? 'interrupted'}`);
    await finishAnswerChecks(checks, log);
    const published = await s.finish(
      {
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
    log(`worker ${node}: done, ${published} records streamed to the coordinator${outcome.interrupted ? ' (interrupted)' : ''}`);
    return io.signal?.aborted ? signalExitCode(io.signal) : EXIT_CODES.OK;
  } finally {
    io.signal?.removeEventListener('abort', onSignal);
    session?.close();
    await link.close();
  }
}
