/**
 * How one sweep stage runs: the run spec with the stage's load, through the same pipeline as
 * `run` (measure.ts: HTTP, worker pool, pre-flighted target) or `sim run` (virtual time), and
 * judged by the run's validity verdict. Stages share the workload settings and seed; each gets its
 * own prompt salt (stagePromptSalt), so they differ in load and in the words of their prompts,
 * not in their lengths.
 */
import type { ClientHealth, IncompleteWorker } from '../analysis/run-validity.js';
import { judgeRun } from '../analysis/verdict.js';
import { DEFAULT_MAX_FAILURE_RATE } from '../config/schema.js';
import { UserError } from '../errors/user-error.js';
import { sendTimes } from '../load/send-times.js';
import { allObjectivesPass, computeMetrics, evaluateObjectives, ObjectiveWatch } from '../metrics/index.js';
import { computeQuality } from '../metrics/quality.js';
import type { RequestRecord } from '../record/record.js';
import type { RunStage } from '../sweep/run-sweep.js';
import { stagePromptSalt, type StageLoad, type StageRole } from '../sweep/stages.js';
import type { StageResult } from '../sweep/sweep-result.js';
import { healthOf, loadThreads, poolDriver } from './drive-load.js';
import { prepareRun, type PreparedRun } from './prepare-run.js';
import { specInputUnit, type RunSpec } from './run-spec.js';
import type { InputUnit } from '../record/input-unit.js';
import type { OpenTarget } from './run-target.js';
import { simulate, type SimulatedServer } from './simulate.js';
import { scrapedPrefixCache, simulatedPrefixCache } from '../sweep/prefix-cache.js';
import type { SessionContext } from './context.js';
import { measureLoad } from './measure.js';

/**
 * The spec of one stage: the sweep's spec with the stage's load (and the stage warm-up) and the
 * stage's prompt salt; in a batch-size sweep, with the stage's batch size too.
 */
export function stageSpec(spec: RunSpec, load: StageLoad, index: number, batchSize?: number): RunSpec {
  const l = batchSize === undefined ? spec.load : { ...spec.load, batch_size: batchSize };
  return {
    ...spec,
    workload: { ...spec.workload, prompt_salt: stagePromptSalt(spec.workload, index) },
    load: load.kind === 'rate' ? { ...l, request_rate: load.rate, concurrency: null } : { ...l, request_rate: Infinity, concurrency: load.concurrency, max_concurrency: null },
  };
}

/**
 * The one load every stage of a batch-size sweep runs at: the spec's own — a closed loop of
 * `concurrency`, or an open loop at `request_rate` (inf: all at once) capped by
 * `--max-concurrency`. One line when none is stated: an unbounded all-at-once load is no fixed
 * load to compare batch sizes at.
 */
export function batchSweepLoad(spec: RunSpec): StageLoad {
  const l = spec.load;
  if (l.concurrency !== null) return { kind: 'concurrency', concurrency: l.concurrency };
  if (!Number.isFinite(l.request_rate) && l.max_concurrency === null) {
    throw new UserError('--batch-sizes: give the load every stage runs at with --max-concurrency C (or load.request_rate / load.concurrency in --config); all at once without a cap is no fixed load');
  }
  return { kind: 'rate', rate: l.request_rate };
}

/**
 * An upper bound on a stage's measure-phase requests, for early stop: its request count, or for
 * an open loop bounded by time the arrivals its seeded schedule puts before the end; less a
 * warm-up given as a count. null when unknown (a closed loop bounded by time only).
 */
export function plannedMeasure(spec: RunSpec, plan: PreparedRun): number | null {
  const load = spec.load;
  let n = plan.totalRequests;
  if (load.duration_ms !== null && load.concurrency === null && Number.isFinite(load.request_rate)) {
    const times = sendTimes(load, plan.workload.timed);
    let count = 0;
    const cap = n ?? Infinity;
    for (let t = times.next(); !t.done && t.value < load.duration_ms && count < cap; t = times.next()) count++;
    n = count;
  }
  if (n === null) return null;
  return 'requests' in load.warmup ? Math.max(0, n - load.warmup.requests) : n;
}

interface Figures {
  goodput: RunSpec['goodput'];
  slos: RunSpec['slos'];
  /** --max-failure-rate; default its default. */
  validity?: RunSpec['validity'];
  /** What batched requests' inputs are (run-spec.ts specInputUnit); default `inputs`. */
  inputUnit?: InputUnit;
}

/**
 * A stage's figures from its records, judged by the same verdict as a run (analysis/verdict.ts):
 * the requests' outcome, the client's health (when observed), the token cross-checks and a lost
 * worker's missing share. `validity` given (a saved stage's, for `analyze`) is kept as it is:
 * the client's health it rests on is not in the records.
 */
export function stageResult(
  index: number,
  role: StageRole,
  load: StageLoad,
  records: RequestRecord[],
  f: Figures,
  o: {
    health: ClientHealth | null;
    ignoreEos: boolean;
    tokenizer: boolean;
    stoppedEarly: string | null;
    wallMs: number;
    validity?: StageResult['validity'];
    /** What the server adds to each prompt and each further chat message (pre-flight's calibration). */
    promptOverhead?: { tokens: number | null; perMessage: number | null };
    /** Stopped by a signal: cancelled requests were the user's doing. */
    interrupted?: boolean;
    /** Distributed stages: workers whose share did not all arrive. */
    incomplete?: readonly IncompleteWorker[];
  },
): StageResult {
  const sorted = [...records].sort((a, b) => a.id - b.id);
  const slos = f.slos.length > 0 ? evaluateObjectives(sorted, f.slos, { goodput: f.goodput }) : null;
  const metrics = computeMetrics(sorted, { slos: f.goodput, inputUnit: f.inputUnit ?? 'inputs' });
  return {
    index,
    role,
    load,
    metrics,
    quality: computeQuality(sorted, { slos: f.goodput, durationS: metrics.duration_s, totalCost: null }),
    validity:
      o.validity !== undefined
        ? o.validity
        : judgeRun({
            records: sorted,
            requests: metrics.requests,
            health: o.health,
            ignoreEos: o.ignoreEos,
            clientTokenizer: o.tokenizer ? 'tokenizer' : 'estimate',
            promptOverheadTokens: o.promptOverhead?.tokens ?? null,
            promptPerMessageTokens: o.promptOverhead?.perMessage ?? null,
            maxFailureRate: f.validity?.max_failure_rate ?? DEFAULT_MAX_FAILURE_RATE,
            // A stage stopped early cancelled its requests in flight itself.
            interrupted: (o.interrupted ?? false) || o.stoppedEarly !== null,
            ...(o.incomplete ? { incomplete: o.incomplete } : {}),
          }),
    slos,
    // A stage stopped early failed an SLO, whatever its partial figures say.
    slos_pass: slos === null ? null : o.stoppedEarly === null && allObjectivesPass(slos),
    stopped_early: o.stoppedEarly,
    records: records.length,
    wall_s: o.wallMs / 1000,
  };
}

/** Rejects loads a stage cannot run with the sweep's limits (one line, exit 2). */
export function checkStageLimits(spec: RunSpec, loads: readonly StageLoad[]): void {
  const l = spec.load;
  if (l.num_prompts === null && loads.some((s) => s.kind === 'rate' && !Number.isFinite(s.rate))) {
    throw new UserError('--num-prompts: a stage at rate inf sends all its requests at once, so it needs a request count (give --num-prompts with --duration)');
  }
}

export interface StageSink {
  /** Each finished record, its `stage` already set. */
  write(rec: RequestRecord): void;
}

/** A stage's early stop: once an SLO can no longer be met, `stop` is called with why. */
export function earlyStop(spec: RunSpec, stagePlan: PreparedRun, stage: RunSpec, stop: (why: string) => void): { add(rec: RequestRecord): void; readonly reason: string | null } {
  const planned = plannedMeasure(stage, stagePlan);
  const watch = planned !== null && spec.slos.length > 0 ? new ObjectiveWatch(spec.slos, planned, spec.goodput) : null;
  let reason: string | null = null;
  return {
    add(rec) {
      if (!watch || reason !== null) return;
      watch.add(rec);
      const why = watch.hopeless();
      if (why !== null) {
        reason = why;
        stop(why);
      }
    },
    get reason() {
      return reason;
    },
  };
}

/** Stages over HTTP against an open target, each through the run pipeline (measure.ts); a stage stops early once an SLO can no longer be met. */
export function httpStages(spec: RunSpec, target: OpenTarget, ctx: SessionContext, sink: StageSink, log: (line: string) => void): RunStage {
  return async (load, role, index, batchSize) => {
    const s = stageSpec(spec, load, index, batchSize);
    const plan = await prepareRun(s, log);
    const stop = new AbortController();
    const early = earlyStop(spec, plan, s, () => stop.abort());
    const signal = ctx.signal ? AbortSignal.any([ctx.signal, stop.signal]) : stop.signal;
    const t0 = performance.now();
    // Server-side series per stage (docs/observe.md): what the server did at this load.
    const { driven, observed } = await measureLoad({
      spec: s,
      baseUrl: target.baseUrl,
      proxy: target.proxy,
      ctx,
      log,
      threads: loadThreads(s),
      view: {},
      drive: poolDriver(s, target, plan, { signal }),
      onRecord: (rec) => {
        rec.stage = index;
        early.add(rec);
      },
      sink: (rec) => sink.write(rec),
    });
    const records = driven.records;
    for (const r of records) r.stage = index;
    const result = stageResult(index, role, load, records, { ...spec, inputUnit: specInputUnit(spec.target) }, {
      health: healthOf(s, driven, plan.workload.timed !== undefined),
      ignoreEos: target.ignoreEos,
      tokenizer: Boolean(spec.workload.tokenizer),
      promptOverhead: { tokens: target.promptOverheadTokens, perMessage: target.promptPerMessageTokens },
      stoppedEarly: early.reason,
      interrupted: ctx.signal?.aborted === true,
      wallMs: performance.now() - t0,
    });
    const server = observed?.observation ?? null;
    return { ...result, server, prefix_cache: scrapedPrefixCache(server), ...(batchSize !== undefined ? { batch_size: batchSize } : {}) };
  };
}

/**
 * The identity of a virtual sweep's prompts: the salt a sweep against a server would have. Virtual
 * time sends no text and picks no random salt, so the stages' prompts are told apart by this
 * fixed name and their stage index (stagePromptSalt): the same rule, deterministic.
 */
const VIRTUAL_SWEEP_SALT = 'virtual';

/**
 * Stages in virtual time through one simulated engine (no early stop: a stage takes
 * milliseconds). The engine stays between stages, as a server does, so its prefix cache keeps
 * what earlier stages left there: a stage sending an earlier stage's prompts again (a shared-prefix
 * workload; `--prompt-salt ""`) is served from it, one with fresh prompts is not.
 */
export function virtualStages(spec: RunSpec, model: string, sink: StageSink, log: (line: string) => void): RunStage {
  const server: SimulatedServer = { engine: null };
  return async (load, role, index, batchSize) => {
    const s = stageSpec(spec, load, index, batchSize);
    const t0 = performance.now();
    server.promptIdentity = stagePromptSalt({ ...spec.workload, prompt_salt: spec.workload.prompt_salt ?? VIRTUAL_SWEEP_SALT }, index);
    const out = await simulate(s, await prepareRun(s, log, { lengthsOnly: true }), model, undefined, null, server);
    for (const r of out.records) {
      r.stage = index;
      sink.write(r);
    }
    const result = stageResult(index, role, load, out.records, { ...spec, inputUnit: specInputUnit(spec.target) }, { health: null, ignoreEos: true, tokenizer: Boolean(spec.workload.tokenizer), stoppedEarly: null, wallMs: performance.now() - t0 });
    return { ...result, prefix_cache: simulatedPrefixCache(out.stats.prefix_queries, out.stats.prefix_hits), ...(batchSize !== undefined ? { batch_size: batchSize } : {}) };
  };
}
