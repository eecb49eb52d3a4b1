/**
 * Real-time driver of the engine: runs step() when the previous step ends, and at the step's
 * end emits the tokens it produced. Step k+1 starts at the scheduled end of step k (not at the
 * late timer's firing time), so the simulated timeline never drifts; lateness is measured.
 */
import type { Backend, BackendStats, GenRequest, GpuActivity, TokenSink } from './backend.js';
import type { EngineConfig } from './engine/config.js';
import { activationReserveBytes, engineConfig } from './engine/config.js';
import { Engine } from './engine/engine.js';
import { Frontend } from './engine/frontend.js';
import type { EngineRequest, Seq, StepResult } from './engine/engine.js';
import type { HardwareProfile } from './engine/hardware.js';
import type { ModelProfile } from './engine/models.js';
import { hardwareProfile, modelProfile } from './engine/profiles.js';
import { kvBytesPerToken, weightBytes } from './engine/models.js';
import { LatenessStats } from './lateness.js';
import { LateSteps } from './late-steps.js';

export interface EngineTiming {
  kind: 'engine';
  /** Profile id ('h100', …) or a JSON/YAML file path. */
  hardware: string | HardwareProfile;
  model: string | ModelProfile;
  engine?: Partial<EngineConfig>;
}

export class EngineBackend implements Backend {
  readonly engine: Engine;
  readonly lateness = new LatenessStats();
  /** Steps that ended over LATE_STEP_MS late (the process was short of CPU), for /metrics. */
  readonly lateSteps: LateSteps;
  private readonly sinks = new Map<number, TokenSink>();
  private timer: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;
  /** The pending timer (or immediate) is onWake's: idle until the next join. */
  private waking = false;
  private busy = false;
  private closed = false;
  private pending: StepResult | null = null;
  private stepStart = 0;
  private stepEnd = 0;
  /** Σ step time, and Σ of the roofline's compute and memory terms (ms): GPU activity for /metrics. */
  private readonly gpuMs = { busy: 0, compute: 0, memory: 0 };
  /**
   * Past the front end (engine/frontend.ts) at `arrivalMs` (non-decreasing): added once the
   * (scheduled) step end passes that time, or, when idle, at that time.
   */
  private incoming: { req: EngineRequest; arrivalMs: number }[] = [];
  private readonly frontend: Frontend;
  /** Multi-step windows emit several tokens per sequence in one step. */
  private readonly multiStep: boolean;

  constructor(
    t: EngineTiming,
    private readonly now: () => number = () => performance.now(),
    warn: (line: string) => void = () => {},
  ) {
    this.lateSteps = new LateSteps(warn);
    const hw = hardwareProfile(t.hardware);
    this.engine = new Engine(hw, modelProfile(t.model), engineConfig(t.engine, hw));
    this.multiStep = this.engine.cfg.num_scheduler_steps > 1;
    this.frontend = new Frontend(this.engine.cfg);
  }

  submit(req: GenRequest, sink: TokenSink): void {
    if (this.closed) return;
    const er = { id: req.id, prompt_tokens: req.promptTokens, output_tokens: req.outputTokens, block_hashes: req.blockHashes };
    const why = this.engine.rejectReason(er);
    // (rejection is immediate, so the HTTP layer can answer 400 before any header)
    if (why !== null) {
      sink.onFail(why, 400);
      return;
    }
    this.sinks.set(req.id, sink);
    this.catchUp(req.arrivalMs);
    // Joins the engine at the end of the step running then, like an arrival in virtual time.
    this.incoming.push({ req: er, arrivalMs: this.frontend.joinAt(req.arrivalMs, req.promptTokens) });
    if (!this.busy) this.startAt(Math.max(this.incoming[0]!.arrivalMs, this.stepEnd));
  }

  /** Idle: the next step starts at `t` (now or later) with every request that joined by then. */
  private startAt(t: number): void {
    this.busy = true;
    const wait = t - this.now();
    if (wait > 0) {
      this.waking = true;
      this.timer = setTimeout(this.onWake, wait);
      return;
    }
    this.admitIncoming(t);
    this.runStep(t);
  }

  /** When an idle engine starts its next step: the first join, not before the last step's end. */
  private wakeAt(): number {
    return Math.max(this.incoming[0]?.arrivalMs ?? this.stepEnd, this.stepEnd);
  }

  private readonly onWake = (): void => {
    this.timer = null;
    this.immediate = null;
    if (this.closed) return;
    const t = this.wakeAt();
    const early = t - this.now();
    if (early > 0) {
      if (early > 1) this.timer = setTimeout(this.onWake, early);
      else this.immediate = setImmediate(this.onWake);
      return;
    }
    this.wake(t);
  };

  private wake(t: number): void {
    this.waking = false;
    this.admitIncoming(t);
    this.runStep(t);
  }

  /**
   * Runs, in time order, what was due by `t` and is still waiting for its timer (a process
   * that runs late reads an arrival before the timers due before it): the step ends and the
   * idle engine's wake-up. The front end serves a step's token streaming before a request that
   * arrives at or after the step's end, as the virtual driver does; handing the request over
   * first would let it pass that work and change when it joins.
   */
  private catchUp(t: number): void {
    for (;;) {
      if (this.closed) return;
      let due: () => void;
      if (this.pending !== null && this.stepEnd <= t) due = () => this.endStep();
      else if (this.pending === null && this.waking && this.wakeAt() <= t) {
        const at = this.wakeAt();
        due = () => this.wake(at);
      } else return;
      if (this.timer) clearTimeout(this.timer);
      if (this.immediate) clearImmediate(this.immediate);
      this.timer = null;
      this.immediate = null;
      due();
    }
  }

  cancel(id: number): void {
    // A request still in `incoming` is skipped when admitted (its sink is gone).
    if (this.sinks.delete(id)) this.engine.abort(id);
  }

  stats(): BackendStats {
    const e = this.engine;
    return {
      running: e.numRunning,
      waiting: e.numWaiting + this.incoming.length,
      kvUsage: e.kv.usage(),
      preemptions: e.counters.preemptions,
      prefixQueries: e.counters.prefix_queries,
      prefixHits: e.counters.prefix_hits,
      numBlocks: e.kv.numBlocks,
      blockSize: e.kv.blockSize,
      gpu: this.gpuActivity(),
      lateSteps: this.lateSteps.total,
    };
  }

  private gpuActivity(): GpuActivity {
    const e = this.engine;
    const tp = e.cfg.tensor_parallel;
    const kvBytes = e.kv.usage() * e.kv.numBlocks * e.kv.blockSize * kvBytesPerToken(e.model);
    return {
      gpus: tp,
      busyMs: this.gpuMs.busy,
      computeMs: this.gpuMs.compute,
      memoryMs: this.gpuMs.memory,
      memUsedBytesPerGpu: (weightBytes(e.model) + kvBytes) / tp + activationReserveBytes(e.model, e.cfg) + e.cfg.non_torch_bytes,
      memTotalBytesPerGpu: e.hw.mem_bytes,
    };
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = null;
    this.sinks.clear();
  }

  private runStep(startMs: number): void {
    const r = this.engine.step();
    if (r.duration_ms === 0) {
      this.busy = false;
      return;
    }
    this.busy = true;
    const cost = this.engine.roofline.cost(r.shape);
    this.gpuMs.busy += r.duration_ms;
    this.gpuMs.compute += Math.min(cost.compute_ms, r.duration_ms);
    this.gpuMs.memory += Math.min(cost.memory_ms, r.duration_ms);
    this.pending = r;
    this.stepStart = startMs;
    this.stepEnd = startMs + r.duration_ms;
    this.timer = setTimeout(this.onStepEnd, Math.max(0, this.stepEnd - this.now()));
  }

  private readonly onStepEnd = (): void => {
    this.timer = null;
    // libuv timers run on a whole-millisecond loop clock and may fire up to 1 ms early; a step
    // must not end before its time, or a request arriving in that gap would miss its step.
    const early = this.stepEnd - this.now();
    if (early > 0) {
      if (early > 1) this.timer = setTimeout(this.onStepEnd, early);
      else this.immediate = setImmediate(this.onStepEnd);
      return;
    }
    this.immediate = null;
    this.endStep();
  };

  /** The running step ends (at its scheduled time): its tokens go out, and the next step starts. */
  private endStep(): void {
    const r = this.pending as StepResult;
    this.pending = null;
    const end = this.stepEnd;
    const now = this.now();
    this.lateness.record(now - end);
    this.lateSteps.observe(now - end, now);
    const sinks = this.sinks;
    for (const s of r.admitted) sinks.get(s.id)?.onAdmit(this.stepStart);
    // A sequence appears once per token; several times only in a multi-step window, whose
    // tokens are numbered up to its last (s.output − 1).
    const em = r.emitted;
    let left: Map<Seq, number> | null = null;
    if (this.multiStep) {
      left = new Map();
      for (const s of em) left.set(s, (left.get(s) ?? 0) + 1);
    }
    for (const s of em) {
      let later = 0;
      if (left) {
        later = (left.get(s) as number) - 1;
        left.set(s, later);
      }
      const sink = sinks.get(s.id);
      if (!sink) continue;
      sink.onToken(s.output - 1 - later, end);
      if (later === 0) sink.flush();
    }
    this.frontend.streamed(end, r.emitted.length);
    for (const s of r.finished) {
      const sink = sinks.get(s.id);
      if (sink) {
        sinks.delete(s.id);
        sink.onDone(end);
      }
    }
    if (this.closed) return;
    this.admitIncoming(end);
    if (!this.engine.hasWork() && this.incoming.length > 0) {
      // Idle until the next join, which (the timer being late) may already lie before now.
      this.startAt((this.incoming[0] as { arrivalMs: number }).arrivalMs);
    } else if (this.engine.hasWork()) {
      this.runStep(end);
    } else {
      this.busy = false;
    }
  }

  /** Moves requests that arrived by `t` (ms) into the engine, in arrival order. */
  private admitIncoming(t: number): void {
    const inc = this.incoming;
    if (inc.length === 0) return;
    let i = 0;
    while (i < inc.length && (inc[i] as { arrivalMs: number }).arrivalMs <= t) {
      const x = inc[i] as { req: EngineRequest };
      if (this.sinks.has(x.req.id)) this.engine.add(x.req);
      i++;
    }
    this.incoming = i === inc.length ? [] : inc.slice(i);
  }
}
