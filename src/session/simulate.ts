/**
 * `infermeter sim run`: the same spec, workload and load models as `run`, driven through the
 * simulated engine in virtual time — no HTTP, no timers — producing records in the same
 * schema, so every figure and report works on them. An hour of traffic takes seconds.
 */
import { mediaRecordFields, mediaTokens } from '../util/media.js';
import { resolveEndpointKind } from '../client/endpoints/registry.js';
import { UserError } from '../errors/user-error.js';
import { phaseOf } from '../load/phases.js';
import { sendTimes } from '../load/send-times.js';
import { userWindow } from '../load/ramp.js';
import { runVirtualPaced, virtualEngine, type VirtualOptions, type VirtualRequest, type VirtualStats } from '../sim/virtual.js';
import type { Engine } from '../sim/engine/engine.js';
import type { RequestRecord } from '../record/record.js';
import { closeRecords, fileFaultCode, RecordsWriter, specFaultLine } from '../store/records-file.js';
import { keepWrittenColumns } from '../store/written-columns.js';
import { recordToJsonLineParts } from '../record/jsonl.js';
import { createRunDir, createRunDirAt, type RunDir } from '../store/run-dir.js';
import { StepTimeline } from '../sim/step-timeline.js';
import { VirtualRecords } from '../sim/virtual-records.js';
import { redactSecrets } from '../util/redact.js';
import type { WorkItem } from '../workload/index.js';
import { completeRun, type CompletedRun } from './finish-run.js';
import { virtualEnvironment } from './environment-capture.js';
import type { SessionContext } from './context.js';
import { virtualProgress } from './virtual-progress.js';
import { simEngine, simReasoning } from './builtin-sim.js';
import { recordInHistory } from './record-history.js';
import { describeLoad, prepareRun, type PreparedRun } from './prepare-run.js';
import { specInputUnit, type RunSpec } from './run-spec.js';
import type { RunPlacement } from './run.js';
import { resolveCostInputs } from './cost-inputs.js';
import { checkRunBounds } from './run-bounds.js';

/** Thrown from the engine's step callback when the session's signal aborted: the run ends there. */
class VirtualStop extends Error {}

/** Without a count or a duration, a virtual run would never end. */
const MAX_VIRTUAL_REQUESTS = 10_000_000;

/** Where a streamed simulation hands its records (simulate's `stream`). */
export interface RecordStream {
  /** Each record once final, labelled, in completion order. */
  onRecord: (rec: RequestRecord) => void;
  /** Receives every step end that stamped a token (VirtualRecords reads chunks from it). */
  timeline?: StepTimeline;
}

/** What a run shares with the runs before it on one simulated server (a sweep's stages). */
export interface SimulatedServer {
  /** The engine, idle between runs: its prefix cache carries over (sim/virtual.ts `reuse`); null: make one here and keep it for the next run. */
  engine?: Engine | null;
  /**
   * Whose prompts these are: two runs with the same identity send the same synthetic prompts
   * (the same draws under the same salt), two with different ones share none, as a prompt salt
   * does over HTTP. Shared-prefix ids are kept equal within a run. Absent: prompts carry no
   * identity beyond their prefix ids.
   */
  promptIdentity?: string | null;
}

/** 32-bit FNV-1a of a string. */
function fnv32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * Runs the spec's load and workload through the simulated engine in virtual time: records with
 * the workload's labels and each request's phase. Shared by `sim run` and `sim sweep`. With
 * `stream`, records go to it as they finish and none is kept (the result's records are empty):
 * requests are then read as the clock reaches them, so memory does not grow with the run's
 * length beyond what the stream keeps.
 */
export async function simulate(
  spec: RunSpec,
  plan: PreparedRun,
  model: string,
  live: { step: NonNullable<VirtualOptions['onStep']>; finish: () => void } = { step: () => {}, finish: () => {} },
  stream: RecordStream | null = null,
  server: SimulatedServer = {},
): Promise<{ records: RequestRecord[]; stats: VirtualStats }> {
  const load = spec.load;
  const { workload, totalRequests, phases } = plan;
  const closed = load.concurrency !== null;
  if (closed && load.duration_ms !== null && load.num_prompts === null) {
    throw new UserError('--duration with --concurrency: give --num-prompts too (sim run needs the request count up front in closed loop)');
  }

  // Requests are generated lazily: an hour at 20 req/s is 72,000 items. A request's labels wait
  // here until its record is final.
  const labels = new Map<number, Pick<WorkItem, 'task' | 'session' | 'turn' | 'prompt_tokens' | 'inputs' | 'media'>>();
  // A kind that generates nothing (embeddings) costs the engine a prefill: one token's request,
  // whose record then keeps only its latency (no first token, no chunks) and its inputs.
  const kind = resolveEndpointKind(spec.target.endpoint_type, spec.target.endpoint);
  const generates = kind.generates;
  // A transcription sends its audio alone: the item's text is neither sent nor counted (as over HTTP).
  const textSent = kind.input !== 'audio';
  const identity = server.promptIdentity;
  const key = identity === undefined ? null : fnv32(identity ?? '');
  // XOR with one constant keeps equal ids equal within the run and makes them another run's strangers.
  const prefixIds = (ids: number[]): number[] => (key === null || key === fnv32('') ? ids : ids.map((id) => (id ^ key) >>> 0));
  function* requests(): Generator<VirtualRequest> {
    const times = sendTimes(load, workload.timed);
    const limit = totalRequests ?? MAX_VIRTUAL_REQUESTS;
    for (let i = 0; i < limit; i++) {
      const next = times.next();
      if (next.done) return;
      const at = next.value;
      if (!closed && load.duration_ms !== null && at >= load.duration_ms) return;
      const item = workload.next();
      labels.set(i, { task: item.task, session: item.session, turn: item.turn, prompt_tokens: item.prompt_tokens, ...(item.inputs ? { inputs: item.inputs } : {}), ...(item.media ? { media: item.media } : {}) });
      yield {
        id: i,
        scheduled_ms: closed ? 0 : at,
        // Images and audio cost prompt tokens by the simulator's rule (util/media.ts), as over HTTP.
        prompt_tokens: (textSent ? (item.prompt_tokens ?? 0) : 0) + mediaTokens(item.media),
        max_tokens: generates ? (item.max_tokens ?? 128) : 1,
        ...(item.prefix_hash_ids ? { prefix_hash_ids: prefixIds(item.prefix_hash_ids) } : {}),
        // A lengths-only synthetic prompt is draw i of the workload: its identity is (prompts' identity, i).
        ...(!item.prefix_hash_ids && key !== null && item.prompt === '' ? { content_key: (Math.imul(i + 1, 0x9e3779b1) ^ key) >>> 0 } : {}),
      };
    }
  }
  const label = (rec: RequestRecord): void => {
    const item = labels.get(rec.id);
    if (item) {
      labels.delete(rec.id);
      rec.task = item.task;
      rec.session = item.session;
      rec.turn = item.turn;
      rec.client_prompt_tokens = textSent ? item.prompt_tokens : null;
      if (!generates) pooledRecord(rec, item.inputs?.length ?? 1);
      if (item.media) Object.assign(rec, mediaRecordFields(item.media));
    }
    rec.phase = phaseOf(phases, rec.id, rec.scheduled_ms);
  };

  const reasoning = simReasoning(spec.sim);
  let out;
  try {
    // Paced: the event loop gets a turn every ~50 ms of wall time, so a SIGTERM or Ctrl-C stops the run within about that.
    out = await runVirtualPaced({
      hardware: spec.sim.hardware,
      model,
      engine: simEngine(spec.sim, model),
      requests: requests(),
      ...(closed ? { closedLoopConcurrency: load.concurrency! } : {}),
      ...(closed && phases.ramp ? { closedLoopUsers: (k: number) => userWindow(phases.ramp!, k, load.concurrency!) } : {}),
      ...(load.max_concurrency !== null ? { maxConcurrency: load.max_concurrency } : {}),
      ...(reasoning ? { reasoning } : {}),
      onStep: (p) => live.step(p),
      // A trace's timestamps may come in any order: only a schedule is read as it goes.
      ...(stream ? { inOrder: !workload.timed, expectedRequests: totalRequests, onRecord: (rec: RequestRecord) => (label(rec), stream.onRecord(rec)) } : {}),
      ...(stream?.timeline ? { timeline: stream.timeline } : {}),
      ...(server.engine !== undefined ? { reuse: (server.engine ??= virtualEngine({ hardware: spec.sim.hardware, model, engine: simEngine(spec.sim, model) })) } : {}),
    });
    live.finish();
  } catch (err) {
    live.finish();
    if (err instanceof UserError || err instanceof VirtualStop) throw err;
    throw new UserError(`sim run: ${err instanceof Error ? err.message : String(err)} (see --hardware, --model)`);
  }
  for (const rec of out.records) label(rec);
  return out;
}

/** A virtual request of one token made into what an embeddings request records: its latency and inputs only (http-client.ts finishPooled). */
function pooledRecord(rec: RequestRecord, inputs: number): void {
  rec.inputs = inputs;
  rec.first_token_ms = null;
  rec.chunk_ms = new Float64Array(0);
  rec.output_tokens = 0;
  rec.requested_output_tokens = null;
  rec.token_source = 'none';
  rec.finish_reason = null;
  delete rec.first_reasoning_ms;
  delete rec.first_answer_ms;
  delete rec.reasoning_tokens;
}

/**
 * `sim run` as a session: the spec's load through the simulated engine in virtual time, into a run
 * directory and the result object. The virtual run yields to the event loop every ~50 ms of wall
 * time (sim/virtual.ts runVirtualPaced), so a stop signal raised meanwhile ends it at the next
 * step: what was simulated so far is saved and reported as interrupted.
 */
export async function simulateRun(spec: RunSpec, ctx: SessionContext = {}, at: RunPlacement | null = null): Promise<CompletedRun & { diskFault?: string }> {
  const log = (line: string) => ctx.log?.(line);
  if (spec.target.base_url !== null) throw new UserError('--base-url: sim run drives the simulated engine in virtual time; use `infermeter run` for a server');
  const load = spec.load;
  const cost = resolveCostInputs(spec.cost, { gpus: spec.sim.tensor_parallel_size ?? 1, gpuType: spec.sim.hardware });
  const plan = await prepareRun(spec, log, { lengthsOnly: true });
  checkRunBounds(spec, plan, { held: 'columns', warn: log, freeSpace: ctx.freeSpace });
  const workload = plan.workload;
  const timed = workload.timed ?? null;
  const model = spec.target.model ?? spec.sim.model;

  const startedAt = new Date();
  log(`sim run: ${model} on ${spec.sim.hardware}, virtual time…`);
  const live = await virtualProgress(ctx, `infermeter sim run: ${model} on ${spec.sim.hardware} (virtual time)`, load.duration_ms);
  // Records are written as they finish and held in columns (VirtualRecords), not as objects:
  // a day of virtual traffic is millions of records and hundreds of millions of chunk times.
  // The run directory is made with the first record, so a run refused at the start leaves none.
  const saved: { dir: RunDir | null; writer: RecordsWriter | null; opened: boolean; spec: unknown; specFault: { code: string; dir: string } | null } = { dir: null, writer: null, opened: false, spec: null, specFault: null };
  const open = (): void => {
    saved.opened = true;
    if (!spec.output.save) return;
    saved.dir = at ? createRunDirAt(at.path, at.id) : createRunDir(spec.output.result_dir, spec.name, startedAt);
    saved.spec = redactSecrets(spec);
    try {
      saved.dir.writeJson('spec.json', saved.spec);
      saved.writer = new RecordsWriter(saved.dir.recordsPath, { survive: true });
    } catch (err) {
      // A full or read-only folder: the run goes on in memory, nothing more is written there.
      const code = fileFaultCode(err);
      if (code === null) throw err;
      saved.specFault = { code, dir: saved.dir.path };
      saved.dir = null;
    }
  };
  const timeline = new StepTimeline();
  const store = new VirtualRecords(timeline);
  const onRecord = (rec: RequestRecord): void => {
    if (!saved.opened) open();
    const first = store.add(rec);
    const w = saved.writer;
    if (!w) return;
    // A record in the columns has its chunks as a stretch of steps, whose text is formatted once.
    const parts = first !== null && first >= 0 ? recordToJsonLineParts(rec) : null;
    if (parts && first !== null) w.writeLineParts(parts.head, timeline.chunkText(first, rec.chunk_ms.length), parts.tail);
    else w.write(rec);
  };
  // The signal is looked at on every step; a process signal is handled in the loop's pauses
  // (every ~50 ms of wall time), so it stops the run at the step after it arrived.
  const stepping = { step: (p: Parameters<typeof live.step>[0]) => {
    if (ctx.signal?.aborted) throw new VirtualStop();
    live.step(p);
  }, finish: () => live.finish() };
  let out: { stats: VirtualStats } | null = null;
  try {
    out = await simulate(spec, plan, model, stepping, { onRecord, timeline });
  } catch (err) {
    if (!(err instanceof VirtualStop)) {
      saved.writer?.close();
      throw err;
    }
  }
  if (!saved.opened) open();
  const records = store.records();
  // A full or read-only folder: the figures still come from the records in memory; nothing more is written there.
  const diskFault = saved.specFault ? specFaultLine(saved.specFault.code, saved.specFault.dir, records.length) : closeRecords(saved.writer, saved.dir?.path ?? null, { records: records.length });
  const dir = diskFault ? null : saved.dir;
  const s = out?.stats ?? null;
  if (s) {
    log(
      `sim run: ${s.requests} requests, ${(s.sim_duration_ms / 1000).toFixed(1)} s simulated in ${(s.wall_ms / 1000).toFixed(2)} s; ` +
        `${s.steps} steps, ${s.preemptions} preemptions, prefix hit rate ${(s.prefix_hit_rate * 100).toFixed(1)}%`,
    );
  }
  const interrupted = ctx.signal?.aborted === true;
  if (interrupted) log('interrupted: the simulation is reported as far as it ran');

  const environment = await virtualEnvironment(spec, model);
  const done = await completeRun({
    spec,
    inputUnit: specInputUnit(spec.target),
    dir,
    records,
    environment,
    run: { name: spec.name, started_at: startedAt.toISOString(), ended_at: new Date().toISOString(), interrupted, driver: 'virtual', monotonic_origin_ns: null },
    target: { base_url: null, endpoint: spec.target.endpoint, model, simulated: true, simulator: { hardware: spec.sim.hardware, model, engine: simEngine(spec.sim, model), engine_stats: s ? { ...s } : null }, stream: true },
    load: describeLoad(load, { trace: timed !== null, numPrompts: records.length, ignoreEos: true }),
    workload: workload.describe(),
    health: null,
    client: {},
    ignoreEos: true,
    clientTokenizer: spec.workload.tokenizer ? 'tokenizer' : 'estimate',
    cost,
    costSplit: s ? { method: 'simulator_step_time', input_share: s.prefill_ms + s.decode_ms > 0 ? s.prefill_ms / (s.prefill_ms + s.decode_ms) : 0.5 } : null,
    tokenizerId: spec.workload.tokenizer,
  });
  if (diskFault || done.diskFault) return { ...done, diskFault: diskFault ?? done.diskFault! };
  // The first analyze, report or compare of this run loads its columns instead of parsing the text.
  if (dir) keepWrittenColumns(dir.recordsPath, records);
  await recordInHistory(spec.output.result_dir, dir, log, { result: done.result, spec: saved.spec });
  return done;
}
