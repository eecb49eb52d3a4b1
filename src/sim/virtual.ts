/**
 * Virtual-time driver: a discrete-event run of the same Engine, no HTTP and no timers.
 * Time jumps from step end to step end (or to the next arrival when idle); requests that
 * arrive during a step join the next one, exactly as in the real-time driver. Produces one
 * RequestRecord per request, so every metric and report works on simulated runs.
 */
import type { RequestRecord } from '../record/record.js';
import { emptyRecord } from '../record/record.js';
import type { EngineConfig } from './engine/config.js';
import { engineConfig } from './engine/config.js';
import { Engine } from './engine/engine.js';
import type { EngineRequest } from './engine/engine.js';
import { Frontend } from './engine/frontend.js';
import type { HardwareProfile } from './engine/hardware.js';
import type { ModelProfile } from './engine/models.js';
import { hardwareProfile, modelProfile } from './engine/profiles.js';
import { reasoningTokensOf, type ReasoningOptions } from './reasoning.js';
import type { StepTimeline } from './step-timeline.js';

export interface VirtualRequest {
  id: number;
  /** Arrival time (ms from run start); ignored in closed loop. */
  scheduled_ms: number;
  prompt_tokens: number;
  /** Output tokens generated (as with ignore_eos). */
  max_tokens: number;
  /** Ids of shared prefix blocks, in order: equal leading ids = equal leading KV blocks. */
  prefix_hash_ids?: number[];
  /**
   * Without prefix_hash_ids: the identity of the whole prompt (equal keys = equal prompts, e.g.
   * the same synthetic draw under the same salt), so a prompt sent again — in a later stage of a
   * sweep on the same `engine` — can be served from the prefix cache. Absent: shares nothing.
   */
  content_key?: number;
}

export interface VirtualOptions {
  hardware?: string | HardwareProfile;
  model?: string | ModelProfile;
  engine?: Partial<EngineConfig>;
  requests: Iterable<VirtualRequest>;
  /** Closed loop: keep N requests in flight; each is sent when a previous one ends. */
  closedLoopConcurrency?: number;
  /**
   * Closed loop with ramps: when user k (0 ≤ k < N) starts, non-decreasing in k, and from
   * when it sends no new request (load/ramp.ts userWindow). Default: all start at 0, never stop.
   */
  closedLoopUsers?: (k: number) => { start_ms: number; stop_ms: number };
  /** Reasoning mode: each response's first tokens are reasoning (records get the reasoning fields). */
  reasoning?: ReasoningOptions;
  /**
   * Open loop: at most N in flight (--max-concurrency). A request arriving when all N are
   * taken waits, in arrival order, and is sent when one ends: sent_ms − scheduled_ms shows the
   * wait, as in the HTTP runner.
   */
  maxConcurrency?: number;
  /**
   * Called after every engine step with the virtual clock, the records finished since the last
   * call (rejected ones included) and the counts so far: what a progress display needs. The run
   * is synchronous, so the callback decides itself when to draw.
   */
  onStep?: (p: { clock_ms: number; total: number | null; sent: number; in_flight: number; finished: readonly RequestRecord[] }) => void;
  /**
   * Open loop: `requests` come in scheduled order, so they are read one at a time as the clock
   * reaches them and never held for the whole run (else they are read up front and sorted).
   */
  inOrder?: boolean;
  /** With `inOrder`, the request count for onStep's `total` when known (null: stops by time). */
  expectedRequests?: number | null;
  /**
   * Receives each record once final (finished, or rejected at once), in completion order; the
   * run then keeps none (its `records` is empty), so memory does not grow with the run.
   */
  onRecord?: (rec: RequestRecord) => void;
  /** Receives every step end that stamped a token (step-timeline.ts). */
  timeline?: StepTimeline;
  /**
   * An engine that served earlier runs (virtualEngine; a sweep's earlier stages), idle: its KV
   * cache — and the prompts cached in it — carries over, as a server's does between stages.
   * Its hardware, model and config win over `hardware`, `model` and `engine`. Default: a new one.
   */
  reuse?: Engine;
}

export interface VirtualStats {
  requests: number;
  rejected: number;
  /** Simulated time from 0 to the last step end (ms). */
  sim_duration_ms: number;
  steps: number;
  preemptions: number;
  prefix_queries: number;
  prefix_hits: number;
  /** prefix_hits / prefix_queries (0 when none). */
  prefix_hit_rate: number;
  /** Mean tokens and sequences per step. */
  mean_step_tokens: number;
  mean_step_seqs: number;
  num_gpu_blocks: number;
  max_waiting: number;
  generation_tokens: number;
  /** Simulated step time spent on prefill and on decode (ms; engine.ts splits mixed steps). */
  prefill_ms: number;
  decode_ms: number;
  /** Wall-clock time of the simulation itself (ms). */
  wall_ms: number;
}

/** Chains prefix ids into block hashes: h_i = H(h_{i−1}, id_i), so only equal prefixes share. */
function chainHashes(ids: readonly number[] | undefined, maxBlocks: number): number[] {
  if (!ids || ids.length === 0) return [];
  const out: number[] = [];
  let h = 0x811c9dc5;
  for (let i = 0; i < Math.min(ids.length, maxBlocks); i++) {
    h = Math.imul(h ^ (ids[i] as number), 0x01000193) >>> 0;
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
    out.push(h);
  }
  return out;
}

/** Block ids of a request: its prefix ids, or its whole-prompt key then the block's position (chained, the key makes every block its own). */
function blockIdsOf(q: VirtualRequest, blocks: number): number[] | undefined {
  if (q.prefix_hash_ids || q.content_key === undefined || blocks <= 0) return q.prefix_hash_ids;
  const ids = new Array<number>(blocks);
  ids[0] = q.content_key;
  for (let i = 1; i < blocks; i++) ids[i] = i;
  return ids;
}

/** A simulated engine to run several virtual runs on in turn (VirtualOptions.reuse). */
export function virtualEngine(opts: Pick<VirtualOptions, 'hardware' | 'model' | 'engine'>): Engine {
  const hw = hardwareProfile(opts.hardware ?? 'h100');
  return new Engine(hw, modelProfile(opts.model ?? 'llama-3.1-8b'), engineConfig(opts.engine, hw));
}

interface Live {
  rec: RequestRecord;
  chunks: Float64Array;
  n: number;
  /** Closed loop: the user who sent it. */
  user: number;
}

/**
 * The requests in sending order. Open loop with `inOrder`: read one at a time as the clock
 * reaches them (nothing held for the run's length); otherwise read up front, and in open loop
 * sorted by scheduled time (a stable sort, so in-order input keeps its order either way).
 */
class RequestQueue {
  private readonly all: VirtualRequest[] | null;
  private readonly it: Iterator<VirtualRequest> | null;
  private head: VirtualRequest | undefined;
  private i = 0;
  /** Requests taken so far (= the next one's engine id). */
  taken = 0;

  constructor(requests: Iterable<VirtualRequest>, mode: 'lazy' | 'sorted' | 'as-given') {
    if (mode === 'lazy') {
      this.all = null;
      this.it = requests[Symbol.iterator]();
      this.head = this.read();
    } else {
      this.it = null;
      this.all = [...requests];
      if (mode === 'sorted') this.all.sort((a, b) => a.scheduled_ms - b.scheduled_ms);
      this.head = this.all[0];
    }
  }

  /** All requests when read up front; null when read lazily. */
  get total(): number | null {
    return this.all ? this.all.length : null;
  }

  peek(): VirtualRequest | undefined {
    return this.head;
  }

  take(): VirtualRequest {
    const q = this.head as VirtualRequest;
    this.taken++;
    this.head = this.all ? this.all[++this.i] : this.read();
    return q;
  }

  private read(): VirtualRequest | undefined {
    const r = this.it!.next();
    return r.done ? undefined : r.value;
  }
}

export type VirtualResult = { records: RequestRecord[]; stats: VirtualStats };

/** The virtual run in one synchronous loop (calibration, plan's capacity probes, tests). */
export function runVirtual(opts: VirtualOptions): VirtualResult {
  const r = virtualSteps(opts, null).next();
  if (!r.done) throw new Error('runVirtual: the loop paused without a slice');
  return r.value;
}

/**
 * The same run, giving the event loop a turn (setImmediate) every `sliceMs` of wall time, so a
 * process signal (SIGTERM, Ctrl-C) is handled while it runs: `sim run` sees its stop signal within
 * about a slice, not after the loop. The wall clock only decides when to pause, never what is simulated.
 */
export async function runVirtualPaced(opts: VirtualOptions, sliceMs = 50): Promise<VirtualResult> {
  const steps = virtualSteps(opts, sliceMs);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** The loop of runVirtual; with `sliceMs`, it yields (between two iterations) once a slice of wall time has passed. */
function* virtualSteps(opts: VirtualOptions, sliceMs: number | null): Generator<void, VirtualResult, void> {
  const wall0 = performance.now();
  let due = sliceMs === null ? Infinity : wall0 + sliceMs;
  let turns = 0;
  const engine = opts.reuse ?? virtualEngine(opts);
  if (engine.hasWork()) throw new Error('runVirtual: the engine to reuse is still busy');
  // A reused engine's counters hold its earlier runs: this run's stats are what it adds.
  const c0 = { ...engine.counters };
  // Requests pass the front end (frontend.ts) before the engine sees them; join times are non-decreasing.
  const frontend = new Frontend(engine.cfg);
  const joining: { req: EngineRequest; at: number }[] = [];
  let joinHead = 0;
  const admitJoined = (t: number): void => {
    while (joinHead < joining.length && joining[joinHead]!.at <= t) engine.add(joining[joinHead++]!.req);
    if (joinHead > 1024 && joinHead * 2 > joining.length) {
      joining.splice(0, joinHead);
      joinHead = 0;
    }
  };
  const nextJoin = (): number => (joinHead < joining.length ? joining[joinHead]!.at : Infinity);
  const bs = engine.cfg.block_size;
  const closed = opts.closedLoopConcurrency ?? 0;
  const cap = closed > 0 ? Infinity : (opts.maxConcurrency ?? Infinity);
  const queue = new RequestQueue(opts.requests, closed > 0 ? 'as-given' : opts.inOrder ? 'lazy' : 'sorted');
  const total = queue.total ?? opts.expectedRequests ?? null;
  const onRecord = opts.onRecord;
  const records: RequestRecord[] = [];
  /** A record is final: handed over, or kept for the result. */
  const final = onRecord ?? ((rec: RequestRecord) => void records.push(rec));
  /**
   * In-flight requests by engine id. An array, not a Map: it is read once per token; finished
   * entries are cleared, so it holds a pointer-sized hole per request sent.
   */
  const live: (Live | undefined)[] = [];
  const timeline = opts.timeline;
  let rejected = 0;
  let inFlight = 0;
  let clock = 0;
  let sumTokens = 0;
  let sumSeqs = 0;
  let maxWaiting = 0;

  const userWindow = opts.closedLoopUsers ?? (() => ({ start_ms: 0, stop_ms: Infinity }));
  const users = Array.from({ length: Math.max(0, closed) }, (_, k) => userWindow(k));
  let nextUser = 0;
  /** Closed loop: user k sends its next request at t, unless it has stopped or nothing is left. */
  const sendFor = (k: number, t: number): void => {
    if (queue.peek() !== undefined && t < users[k]!.stop_ms) send(t, k);
  };

  /** Sends the next request at time t, never before its scheduled time (engine id = its index). */
  const send = (t: number, user: number): void => {
    const i = queue.taken;
    const q = queue.take();
    const rec = emptyRecord(q.id, closed > 0 ? t : q.scheduled_ms);
    rec.sent_ms = t;
    rec.prompt_tokens = q.prompt_tokens;
    rec.client_prompt_tokens = q.prompt_tokens;
    rec.requested_output_tokens = q.max_tokens;
    const er = { id: i, prompt_tokens: q.prompt_tokens, output_tokens: q.max_tokens, block_hashes: chainHashes(blockIdsOf(q, Math.floor(q.prompt_tokens / bs)), Math.floor(q.prompt_tokens / bs)) };
    const why = engine.rejectReason(er);
    if (why !== null) {
      rejected++;
      if (opts.onStep) finishedNow.push(rec);
      rec.status = 'error';
      rec.error_class = 'http_4xx';
      rec.http_status = 400;
      rec.error_message = why;
      rec.end_ms = rec.sent_ms;
      final(rec);
      if (closed > 0) sendFor(user, t);
      return;
    }
    if (!onRecord) records.push(rec);
    joining.push({ req: er, at: frontend.joinAt(t, q.prompt_tokens) });
    inFlight++;
    live[i] = { rec, chunks: new Float64Array(Math.max(1, q.max_tokens)), n: 0, user };
  };

  /** Records finished since the last onStep call. */
  const finishedNow: RequestRecord[] = [];
  /** Slots that were free while the last step ran: arrivals then were sent on arrival. */
  let freeDuringStep = cap;
  for (;;) {
    // Every 256 iterations (a few ms), one look at the wall clock: past the slice, the caller gets a turn.
    if ((++turns & 255) === 0 && due !== Infinity && performance.now() >= due) {
      yield;
      due = performance.now() + sliceMs!;
    }
    // Users whose start has come send their first request then (during a step: they join the next one).
    while (nextUser < users.length && users[nextUser]!.start_ms <= clock) {
      const k = nextUser++;
      sendFor(k, users[k]!.start_ms);
    }
    if (closed <= 0) {
      // Arrivals up to now join the next step: sent when they arrived if a slot was free during
      // the step, else held until now (a slot freed at this step's end) or later.
      let q: VirtualRequest | undefined;
      while ((q = queue.peek()) !== undefined && q.scheduled_ms <= clock && inFlight < cap) {
        if (freeDuringStep > 0) {
          freeDuringStep--;
          send(q.scheduled_ms, 0);
        } else send(clock, 0);
      }
    }
    admitJoined(clock);
    if (engine.numWaiting > maxWaiting) maxWaiting = engine.numWaiting;
    if (engine.hasWork()) {
      freeDuringStep = cap - inFlight;
      const r = engine.step();
      const end = clock + r.duration_ms;
      sumTokens += r.shape.tokens;
      sumSeqs += r.shape.seqs;
      if (timeline && r.emitted.length > 0 && !(end <= (timeline.length > 0 ? timeline.at(timeline.length - 1) : -Infinity))) timeline.push(end);
      for (const s of r.emitted) {
        const l = live[s.id] as Live;
        l.chunks[l.n++] = end;
      }
      frontend.streamed(end, r.emitted.length);
      clock = end;
      for (const s of r.finished) {
        const l = live[s.id] as Live;
        live[s.id] = undefined;
        const rec = l.rec;
        rec.chunk_ms = l.chunks.subarray(0, l.n);
        rec.first_token_ms = l.n > 0 ? (l.chunks[0] as number) : null;
        rec.end_ms = end;
        rec.output_tokens = l.n;
        rec.token_source = 'usage';
        rec.finish_reason = 'length';
        const thought = reasoningTokensOf(opts.reasoning, l.n);
        if (thought > 0) {
          rec.first_reasoning_ms = l.chunks[0]!;
          rec.first_answer_ms = thought < l.n ? l.chunks[thought]! : null;
          rec.reasoning_tokens = thought;
        }
        inFlight--;
        if (onRecord) onRecord(rec);
        if (opts.onStep) finishedNow.push(rec);
        if (closed > 0) sendFor(l.user, end);
      }
      if (opts.onStep) {
        opts.onStep({ clock_ms: clock, total, sent: queue.taken, in_flight: inFlight, finished: finishedNow });
        finishedNow.length = 0;
      }
    } else {
      // Idle: jump to whichever comes first, the next arrival, user start or front-end join.
      // (An arrival held by --max-concurrency waits for a slot: a request still in the front end frees it.)
      const head = queue.peek();
      const arrival = closed <= 0 && head !== undefined && inFlight < cap ? head.scheduled_ms : Infinity;
      const start = closed > 0 && nextUser < users.length && head !== undefined ? users[nextUser]!.start_ms : Infinity;
      const t = Math.min(arrival, start, nextJoin());
      if (t === Infinity) break;
      clock = Math.max(clock, t);
      if (t === arrival) freeDuringStep = cap - inFlight;
    }
  }
  const e = engine.counters;
  const c = { steps: e.steps - c0.steps, preemptions: e.preemptions - c0.preemptions, prefix_queries: e.prefix_queries - c0.prefix_queries, prefix_hits: e.prefix_hits - c0.prefix_hits, generation_tokens: e.generation_tokens - c0.generation_tokens, prefill_ms: e.prefill_ms - c0.prefill_ms, decode_ms: e.decode_ms - c0.decode_ms };
  return {
    records,
    stats: {
      requests: queue.total ?? queue.taken,
      rejected,
      sim_duration_ms: clock,
      steps: c.steps,
      preemptions: c.preemptions,
      prefix_queries: c.prefix_queries,
      prefix_hits: c.prefix_hits,
      prefix_hit_rate: c.prefix_queries > 0 ? c.prefix_hits / c.prefix_queries : 0,
      mean_step_tokens: c.steps > 0 ? sumTokens / c.steps : 0,
      mean_step_seqs: c.steps > 0 ? sumSeqs / c.steps : 0,
      num_gpu_blocks: engine.kv.numBlocks,
      max_waiting: maxWaiting,
      generation_tokens: c.generation_tokens,
      prefill_ms: c.prefill_ms,
      decode_ms: c.decode_ms,
      wall_ms: performance.now() - wall0,
    },
  };
}
