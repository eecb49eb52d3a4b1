/**
 * `infermeter sweep --distributed nats://… --workers-expected N`: the coordinator's side of a
 * distributed sweep. Workers join once and stay connected; each stage is announced (its load and
 * the workers sharing it), gets its own barrier and start, and its records — stage index in their
 * idempotent ids — are read from the stream into the sweep's records.jsonl. A stage's figures are
 * computed from its merged records by the same code as a single-process sweep's stage. A worker
 * lost in a stage makes that stage's verdict partial, naming it; later stages are shared by the
 * workers left, so their request sets stay whole.
 */
import { partialResultReason } from '../analysis/run-validity.js';
import { finishedRun, storeRunDir, type FinishedRun } from '../distributed/results-store.js';
import type { SweepResult } from '../sweep/sweep-result.js';
import { UserError } from '../errors/user-error.js';
import { Coordinator, type JoinedNode } from '../distributed/coordinator.js';
import { NatsLink } from '../distributed/nats-link.js';
import type { RunState, TargetInfo } from '../distributed/protocol.js';
import type { RequestRecord } from '../record/record.js';
import type { RunStage } from '../sweep/run-sweep.js';
import { redactUrl } from '../util/redact.js';
import { fetchHint, type CoordinatorFlags } from './coordinator-options.js';
import { ledgerClient, ledgerHealth, nodesSection, originAt } from './distributed-figures.js';
import { distributedHashes, stageLoadMessage } from './distributed-spec.js';
import type { SessionContext } from './context.js';
import { measureLoad } from './measure.js';
import { infermeterVersion } from './version.js';
import { prepareRun } from './prepare-run.js';
import type { RunSpec } from './run-spec.js';
import type { OpenTarget } from './run-target.js';
import { earlyStop, stageResult, stageSpec, type StageSink } from './sweep-stages.js';
import { scrapedPrefixCache } from '../sweep/prefix-cache.js';

export class DistributedSweep {
  /** Workers sharing the next stage: all at first, less those lost. */
  private active: number[];
  private joined: JoinedNode[] = [];

  private constructor(
    private readonly spec: RunSpec,
    private readonly flags: CoordinatorFlags,
    private readonly link: NatsLink,
    private readonly coord: Coordinator,
    private readonly target: OpenTarget,
    private readonly ctx: SessionContext,
    private readonly log: (line: string) => void,
  ) {
    this.active = Array.from({ length: flags.workers }, (_, i) => i);
  }

  /** Connects, starts the sweep's stream afresh and waits until every worker has joined. */
  static async open(spec: RunSpec, flags: CoordinatorFlags, target: OpenTarget, ctx: SessionContext, log: (line: string) => void): Promise<DistributedSweep> {
    const hash = distributedHashes(spec).stage;
    const link = await NatsLink.open(flags.natsUrl, flags.runId, { name: `infermeter sweep coordinator ${flags.runId}`, flag: '--distributed', waitMs: flags.workerWaitMs, log, ...(ctx.signal ? { signal: ctx.signal } : {}) });
    try {
      if (await link.streamExists()) {
        // A sweep is not resumed: its stages' barriers and shares were decided by the coordinator that died.
        if (await link.lastOn<RunState>(link.subjects.state)) log(`--run-id ${flags.runId}: NATS holds an unfinished run or sweep under this id; it is dropped (sweeps are not resumed)`);
        await link.deleteStream();
      }
      await link.ensureStream();
      const coord = new Coordinator({ link, runId: flags.runId, workers: flags.workers, specHash: hash, sweep: true, version: infermeterVersion(), log, ...(ctx.signal ? { signal: ctx.signal } : {}) });
      const info: TargetInfo = { base_url: target.baseUrl, model: target.model, token_scale: target.tokenScale, ignore_eos: target.ignoreEos, prompt_salt: spec.workload.prompt_salt };
      log(`waiting for ${flags.workers} workers on ${redactUrl(flags.natsUrl)} (run id ${flags.runId}, spec hash ${hash}): infermeter worker --nats ${redactUrl(flags.natsUrl)} --run-id ${flags.runId} --index I … (the sweep's flags without the stage list)`);
      const sweep = new DistributedSweep(spec, flags, link, coord, target, ctx, log);
      try {
        await coord.barrier(info, flags.workerWaitMs);
      } catch (err) {
        coord.close();
        throw err;
      }
      return sweep;
    } catch (err) {
      await link.close();
      throw err;
    }
  }

  /** True once no worker is left to share a stage: the sweep stops. */
  get exhausted(): boolean {
    return this.active.length === 0;
  }

  /** Every HTTP stage of the sweep, shared by the workers; server metrics and cold start are observed here. */
  stages(sink: StageSink, startedAt: Date, runDir: string | null): RunStage {
    const { spec, ctx, log, flags, coord, link } = this;
    return async (load, role, index) => {
      if (this.active.length === 0) throw new UserError('every worker was lost: no stage can run');
      const s = stageSpec(spec, load, index);
      const plan = await prepareRun(s, log);
      // A closed loop of c users runs on at most c workers: a worker without a user would send nothing of its share.
      const nodes = load.kind === 'concurrency' ? this.active.slice(0, Math.max(1, load.concurrency)) : [...this.active];
      const joined = await coord.stageReady({ type: 'stage', stage: index, load: stageLoadMessage(load), nodes }, flags.workerWaitMs, flags.workerTimeoutMs);
      if (index === 0) this.joined = joined;
      // Everything of earlier stages is below this sequence number.
      const fromSeq = (await link.lastSeq()) + 1;
      const t0 = performance.now();
      const state: Omit<RunState, 'start_at_ms'> | undefined =
        index === 0
          ? { kind: 'sweep', spec_hash: distributedHashes(spec).stage, workers: flags.workers, started_at: startedAt.toISOString(), run_dir: runDir, target: { base_url: this.target.baseUrl, model: this.target.model, token_scale: this.target.tokenScale, ignore_eos: this.target.ignoreEos, prompt_salt: spec.workload.prompt_salt }, describe: this.target.describe() as unknown as Record<string, unknown>, nodes: joined }
          : undefined;
      // As in a single-process sweep, a stage that can no longer meet an SLO is stopped: every worker is told.
      const early = earlyStop(spec, plan, s, (why) => coord.broadcast({ type: 'stop', stage: index, reason: why }));
      let startAt = 0;
      const { driven, observed } = await measureLoad({
        spec: s,
        baseUrl: this.target.baseUrl,
        proxy: this.target.proxy,
        ctx,
        log,
        // Answers are judged on the workers: their records arrive with the verdict.
        threads: 1,
        view: { title: `infermeter sweep (distributed, ${nodes.length} workers): stage ${index + 1}`, burst: s.load.concurrency === null && s.load.request_rate === Infinity },
        drive: async (hooks) => {
          startAt = await coord.start(index, flags.startDelayMs, state, nodes.length);
          // The stage's t = 0 on this host's monotonic clock: where the workers' record times are measured from.
          hooks.onStart(originAt(startAt), startAt);
          const records: RequestRecord[] = [];
          const got = await coord.collect({
            stage: index,
            nodes,
            totalRequests: plan.totalRequests,
            fromSeq,
            onRecord: (rec) => {
              records.push(rec);
              hooks.onRecord(rec);
            },
            onProgress: hooks.onProgress,
            workerTimeoutMs: flags.workerTimeoutMs,
          });
          return { records, interrupted: got.interrupted, ledger: got.ledger };
        },
        onRecord: (rec) => early.add(rec),
        sink: (rec) => sink.write(rec),
      });
      const { ledger, records } = driven;
      const lost = new Set(ledger.nodes.filter((n) => n.status === 'lost').map((n) => n.node));
      this.active = this.active.filter((n) => !lost.has(n));
      const burst = s.load.concurrency === null && s.load.request_rate === Infinity;
      const incomplete = ledger.incomplete();
      // A worker's missing share is a partial_result finding of the stage's verdict (analysis/verdict.ts).
      for (const line of incomplete.map(partialResultReason)) log(`stage ${index + 1}: ${line}`);
      const result = stageResult(index, role, load, records, spec, {
        health: ledgerHealth(ledger, burst),
        ignoreEos: this.target.ignoreEos,
        tokenizer: Boolean(spec.workload.tokenizer),
        promptOverhead: { tokens: this.target.promptOverheadTokens, perMessage: this.target.promptPerMessageTokens },
        stoppedEarly: early.reason,
        interrupted: driven.interrupted,
        incomplete,
        wallMs: performance.now() - t0,
      });
      const sums = ledgerClient(ledger);
      return {
        ...result,
        server: observed?.observation ?? null,
        prefix_cache: scrapedPrefixCache(observed?.observation),
        distributed: { workers: nodes.length, start_at: new Date(startAt).toISOString(), threads: sums.workers, preconnected: sums.preconnected, stale_socket_retries: sums.stale_socket_retries, nodes: nodesSection(ledger, this.joined.length > 0 ? this.joined : joined) },
      };
    };
  }

  /** sweep.json's `distributed`: where the sweep ran from. */
  describe(): Record<string, unknown> {
    return { run_id: this.flags.runId, nats_url: redactUrl(this.flags.natsUrl), workers: this.flags.workers, nodes: this.joined.map((j) => ({ node: j.node, host: j.host, threads: j.threads })) };
  }

  /** Tells the workers the sweep is over and drops the stream; `keepLink` stays connected for `storeResults`, then `disconnect`. */
  async close(keepLink = false): Promise<void> {
    let ok = false;
    try {
      await this.coord.end();
      this.coord.close();
      await this.link.deleteStream();
      ok = true;
    } finally {
      if (!(ok && keepLink)) await this.link.close();
    }
  }

  /**
   * --store-results: the sweep directory (sweep.json, records, report) in the run id's object
   * store bucket, then the finished note with the sweep's exit code (results-store.ts), as a
   * distributed run stores its run directory.
   */
  async storeResults(dir: string | null, result: SweepResult, exitCode: number): Promise<void> {
    const stored = await storeRunDir(this.link, this.flags.runId, dir, result, exitCode);
    this.log(`results stored on NATS (${stored.files} files, ${stored.bytes} bytes): ${fetchHint(this.flags)}`);
  }

  async disconnect(): Promise<void> {
    await this.link.close();
  }

  /**
   * --store-results: the finished note of this run id, if a coordinator stored the sweep already
   * (this one is a retried pod: its workers are gone); null otherwise.
   */
  static async finished(flags: CoordinatorFlags): Promise<FinishedRun | null> {
    if (!flags.storeResults) return null;
    const link = await NatsLink.open(flags.natsUrl, flags.runId, { name: `infermeter sweep coordinator ${flags.runId}`, flag: '--distributed', waitMs: flags.workerWaitMs });
    try {
      return await finishedRun(link, flags.runId);
    } finally {
      await link.close();
    }
  }
}
