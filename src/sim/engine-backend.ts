/**
 * Real-time driver of the engine: runs step() when the previous step ends, and at the step's
 * end emits the tokens it produced. Step k+1 starts at the scheduled end of step k (not at the
 * late timer's firing time), so the simulated timeline never drifts; lateness is measured.
 */
import type { Backend, BackendStats, GenRequest, TokenSink } from './backend.js';
import type { EngineConfig } from './engine/config.js';
import { engineConfig } from './engine/config.js';
import { Engine } from './engine/engine.js';
import type { StepResult } from './engine/engine.js';
import type { HardwareProfile } from './engine/hardware.js';
import type { ModelProfile } from './engine/models.js';
import { hardwareProfile, modelProfile } from './engine/profiles.js';
import { LatenessStats } from './lateness.js';

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
  private readonly sinks = new Map<number, TokenSink>();
  private timer: NodeJS.Timeout | null = null;
  private busy = false;
  private closed = false;
  private pending: StepResult | null = null;
  private stepStart = 0;
  private stepEnd = 0;

  constructor(
    t: EngineTiming,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.engine = new Engine(hardwareProfile(t.hardware), modelProfile(t.model), engineConfig(t.engine));
  }

  submit(req: GenRequest, sink: TokenSink): void {
    if (this.closed) return;
    const er = { id: req.id, prompt_tokens: req.promptTokens, output_tokens: req.outputTokens, block_hashes: req.blockHashes };
    const why = this.engine.rejectReason(er);
    if (why !== null) {
      sink.onFail(why, 400);
      return;
    }
    this.engine.add(er);
    this.sinks.set(req.id, sink);
    if (!this.busy) this.runStep(Math.max(req.arrivalMs, this.stepEnd));
  }

  cancel(id: number): void {
    if (this.sinks.delete(id)) this.engine.abort(id);
  }

  stats(): BackendStats {
    const e = this.engine;
    return {
      running: e.numRunning,
      waiting: e.numWaiting,
      kvUsage: e.kv.usage(),
      preemptions: e.counters.preemptions,
      prefixQueries: e.counters.prefix_queries,
      prefixHits: e.counters.prefix_hits,
      numBlocks: e.kv.numBlocks,
      blockSize: e.kv.blockSize,
    };
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
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
    this.pending = r;
    this.stepStart = startMs;
    this.stepEnd = startMs + r.duration_ms;
    this.timer = setTimeout(this.onStepEnd, Math.max(0, this.stepEnd - this.now()));
  }

  private readonly onStepEnd = (): void => {
    this.timer = null;
    const r = this.pending as StepResult;
    this.pending = null;
    const end = this.stepEnd;
    this.lateness.record(this.now() - end);
    const sinks = this.sinks;
    for (const s of r.admitted) sinks.get(s.id)?.onAdmit(this.stepStart);
    for (const s of r.emitted) sinks.get(s.id)?.onToken(s.output - 1, end);
    for (const s of r.finished) {
      const sink = sinks.get(s.id);
      if (sink) {
        sinks.delete(s.id);
        sink.onDone(end);
      }
    }
    if (!this.closed && this.engine.hasWork()) this.runStep(end);
    else this.busy = false;
  };
}
