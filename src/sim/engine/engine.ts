/**
 * The clock-free engine: a step loop after vLLM V1's scheduler. Each step():
 *   1. running sequences first, in admission order: each gets min(remaining, budget) new tokens
 *      (1 when decoding, a prefill chunk otherwise); when its KV blocks cannot grow, the newest
 *      running sequence is preempted by recompute (blocks freed, back to the waiting front);
 *   2. then, if nobody was preempted, waiting sequences in FCFS order while budget, max_num_seqs
 *      and free blocks allow; a prefix-cache match skips the cached blocks' tokens
 *      (prefill_first, vLLM V0's order: waiting prompts first, and a step that admits any runs
 *      only prefills);
 *   3. the step's time comes from the roofline; every sequence whose KV caught up with its
 *      tokens samples one output token, emitted at the end of the step.
 * The engine never reads a clock: drivers (real time, virtual time) place steps on a timeline.
 */
import { UserError } from '../../errors/user-error.js';
import type { EngineConfig } from './config.js';
import { checkEngineConfig, maxModelLen, numGpuBlocks } from './config.js';
import { Deque } from './deque.js';
import type { HardwareProfile } from './hardware.js';
import { KvCache } from './kv-cache.js';
import type { BlockOwner } from './kv-cache.js';
import type { ModelProfile } from './models.js';
import { weightBytes } from './models.js';
import { Roofline } from './roofline.js';
import type { StepShape } from './roofline.js';

export interface EngineRequest {
  id: number;
  prompt_tokens: number;
  /** Output tokens to generate before finishing. */
  output_tokens: number;
  /** Chained prefix hashes of the prompt's full blocks. */
  block_hashes: readonly number[];
}

export class Seq implements BlockOwner {
  blocks: number[] = [];
  hashed = 0;
  /** Tokens whose KV is in the cache. */
  computed = 0;
  /** Output tokens generated so far. */
  output = 0;
  /** New tokens scheduled in the current step. */
  scheduled = 0;
  /** Prompt tokens found in the prefix cache at the last admission. */
  cached_tokens = 0;
  /** preempt-swap: tokens of KV held in host memory while preempted (restored, not recomputed, on readmission). */
  swapped = 0;
  admitted = false;
  aborted = false;
  done = false;

  constructor(
    readonly id: number,
    readonly prompt: number,
    readonly maxOutput: number,
    readonly hashes: readonly number[],
  ) {}

  get total(): number {
    return this.prompt + this.output;
  }
}

export interface StepResult {
  duration_ms: number;
  shape: StepShape;
  /** Scheduled for the first time in this step. */
  admitted: Seq[];
  /**
   * One entry per token produced, in order: a sequence appears once per token (more than once
   * only in a multi-step window); its last entry's token index is seq.output − 1.
   */
  emitted: Seq[];
  /** Finished in this step (also in emitted). */
  finished: Seq[];
  preempted: number;
}

export interface EngineCounters {
  steps: number;
  prompt_tokens: number;
  generation_tokens: number;
  preemptions: number;
  /** Prefix cache: tokens looked up and tokens found, at each admission (vLLM counts the same). */
  prefix_queries: number;
  prefix_hits: number;
  finished: number;
  /**
   * Step time attributed to prefill (prompt tokens, incl. recompute after preemption) and to
   * decode (one new token per sequence), ms. A mixed step is split in proportion to the
   * roofline time of its prefill part and its decode part, each costed alone.
   */
  prefill_ms: number;
  decode_ms: number;
}

export class Engine {
  readonly kv: KvCache;
  readonly roofline: Roofline;
  readonly maxLen: number;
  readonly counters: EngineCounters = { steps: 0, prompt_tokens: 0, generation_tokens: 0, preemptions: 0, prefix_queries: 0, prefix_hits: 0, finished: 0, prefill_ms: 0, decode_ms: 0 };
  private readonly waiting = new Deque<Seq>();
  private running: Seq[] = [];
  private readonly byId = new Map<number, Seq>();
  private waitingLive = 0;
  /** preempt-swap: host-link time of the KV moved out or in during the current step, ms. */
  private swapMs = 0;

  constructor(
    readonly hw: HardwareProfile,
    readonly model: ModelProfile,
    readonly cfg: EngineConfig,
  ) {
    checkEngineConfig(model, cfg);
    const blocks = numGpuBlocks(hw, model, cfg);
    if (blocks < 1) {
      // e.g. Llama-3.1-70B (141 GB of bf16 weights) on one 80 GB GPU: a user error, said plainly.
      const gb = (x: number): string => (x / 1e9).toFixed(1);
      throw new UserError(
        `${model.id} does not fit on ${hw.id} with tensor_parallel=${cfg.tensor_parallel}: ${gb(weightBytes(model))} GB of weights, ` +
          `${gb(cfg.tensor_parallel * hw.mem_bytes * cfg.gpu_memory_utilization)} GB usable; raise tensor_parallel or gpu_memory_utilization`,
      );
    }
    this.kv = new KvCache(blocks, cfg.block_size, cfg.enable_prefix_caching);
    this.roofline = new Roofline(hw, model, cfg);
    this.maxLen = maxModelLen(model, cfg);
  }

  get numRunning(): number {
    return this.running.length;
  }

  get numWaiting(): number {
    return this.waitingLive;
  }

  /** Why a request can never run (too long for the model or the whole cache), or null. */
  rejectReason(r: EngineRequest): string | null {
    const total = r.prompt_tokens + r.output_tokens;
    if (total > this.maxLen) {
      return `This model's maximum context length is ${this.maxLen} tokens. However, you requested ${total} tokens (${r.prompt_tokens} in the messages, ${r.output_tokens} in the completion).`;
    }
    if (this.kv.blocksFor(total) > this.kv.numBlocks) {
      return `request needs ${this.kv.blocksFor(total)} KV blocks but the cache has only ${this.kv.numBlocks}`;
    }
    return null;
  }

  /** Queues a request (call rejectReason first). */
  add(r: EngineRequest): Seq {
    const s = new Seq(r.id, Math.max(1, r.prompt_tokens), Math.max(1, r.output_tokens), r.block_hashes);
    this.byId.set(r.id, s);
    this.waiting.pushBack(s);
    this.waitingLive++;
    return s;
  }

  abort(id: number): void {
    const s = this.byId.get(id);
    if (!s || s.done) return;
    this.byId.delete(id);
    s.aborted = true;
    s.done = true;
    const i = this.running.indexOf(s);
    if (i >= 0) {
      this.running.splice(i, 1);
      this.kv.release(s);
    } else {
      this.waitingLive--;
    }
  }

  hasWork(): boolean {
    return this.running.length > 0 || this.waitingLive > 0;
  }

  step(): StepResult {
    const cfg = this.cfg;
    const kv = this.kv;
    const budget = cfg.max_num_batched_tokens;
    const scheduled: Seq[] = [];
    const admitted: Seq[] = [];
    let preempted = 0;

    // 1–2 (vLLM V0 without chunked prefill schedules new prompts alone: a step that admits any
    // runs only prefills, and the running sequences wait for the next step).
    if (cfg.prefill_first) this.admitWaiting(budget, scheduled, admitted);
    if (scheduled.length === 0) {
      // 1. Running sequences first; 2. waiting ones, FCFS, only when nothing was preempted this step.
      const r = this.scheduleRunning(budget, scheduled);
      preempted = r.preempted;
      if (preempted === 0 && !cfg.prefill_first) this.admitWaiting(r.budget, scheduled, admitted);
    }

    // 3. Cost, then apply: KV grows, caught-up sequences sample a token.
    const shape: StepShape = { tokens: 0, seqs: scheduled.length, attn_ctx: 0, kv_tokens: 0 };
    const decode: StepShape = { tokens: 0, seqs: 0, attn_ctx: 0, kv_tokens: 0 };
    for (const s of scheduled) {
      const n = s.scheduled;
      const attn = n * s.computed + (n * (n + 1)) / 2;
      shape.tokens += n;
      shape.attn_ctx += attn;
      shape.kv_tokens += s.computed + n;
      // Decoding: one token past a KV cache that already holds every earlier token.
      if (n === 1 && s.output > 0 && s.computed === s.total - 1) {
        decode.tokens += 1;
        decode.seqs++;
        decode.attn_ctx += attn;
        decode.kv_tokens += s.computed + 1;
      }
    }
    let duration_ms = scheduled.length > 0 ? this.roofline.stepMs(shape) + this.swapMs : 0;
    this.swapMs = 0;
    if (scheduled.length > 0) this.splitStepTime(duration_ms, shape, decode);
    const emitted: Seq[] = [];
    const finished: Seq[] = [];
    for (const s of scheduled) {
      s.computed += s.scheduled;
      kv.commit(s, s.computed, s.hashes);
      if (s.computed < s.total) continue;
      if (s.output === 0) this.counters.prompt_tokens += s.prompt;
      this.emitToken(s, emitted, finished);
    }
    if (scheduled.length > 0) this.counters.steps++;
    // Multi-step scheduling (vLLM V0 --num-scheduler-steps): a pure decode batch runs the rest of
    // its window without returning to the scheduler; every token of the window is delivered at its end.
    if (cfg.num_scheduler_steps > 1 && decode.seqs > 0 && decode.seqs === shape.seqs) {
      duration_ms += this.decodeWindow(scheduled, cfg.num_scheduler_steps - 1, emitted, finished);
    }
    if (finished.length > 0) {
      this.running = this.running.filter((s) => !s.done);
      this.counters.finished += finished.length;
    }
    return { duration_ms, shape, admitted, emitted, finished, preempted };
  }

  /** One output token of `s`; a sequence at its output limit finishes and frees its KV blocks. */
  private emitToken(s: Seq, emitted: Seq[], finished: Seq[]): void {
    s.output++;
    this.counters.generation_tokens++;
    emitted.push(s);
    if (s.output >= s.maxOutput) {
      s.done = true;
      this.kv.release(s);
      this.byId.delete(s.id);
      finished.push(s);
    }
  }

  /** Up to `iterations` more decode iterations of `batch` (a multi-step window); their time, ms. */
  private decodeWindow(batch: Seq[], iterations: number, emitted: Seq[], finished: Seq[]): number {
    const kv = this.kv;
    let ms = 0;
    let live = batch.filter((s) => !s.done);
    for (let j = 0; j < iterations && live.length > 0; j++) {
      // KV for one more token each; a window that cannot grow ends early (the scheduler preempts next step).
      if (!live.every((s) => kv.allocate(s, s.computed + 1, s.hashes, 0))) break;
      const it: StepShape = { tokens: live.length, seqs: live.length, attn_ctx: 0, kv_tokens: 0 };
      for (const s of live) {
        it.attn_ctx += s.computed + 1;
        it.kv_tokens += s.computed + 1;
      }
      // CPU work (scheduling: step_overhead_ms; output processing: request_overhead_ms per
      // sequence) is paid once per window, at its first iteration; a further iteration pays
      // only what the model runner still does between GPU steps (multi_step_overhead_ms).
      const d = this.roofline.stepMs(it) - this.cfg.step_overhead_ms - live.length * this.cfg.request_overhead_ms + this.cfg.multi_step_overhead_ms;
      ms += d;
      this.counters.decode_ms += d;
      this.counters.steps++;
      for (const s of live) {
        s.computed++;
        kv.commit(s, s.computed, s.hashes);
        this.emitToken(s, emitted, finished);
      }
      live = live.filter((s) => !s.done);
    }
    return ms;
  }

  /** Running sequences, oldest first; the newest are preempted (recompute) when KV cannot grow. */
  private scheduleRunning(budget: number, scheduled: Seq[]): { budget: number; preempted: number } {
    const kv = this.kv;
    const running = this.running;
    let preempted = 0;
    for (let i = 0; i < running.length && budget > 0; i++) {
      const s = running[i] as Seq;
      const n = Math.min(s.total - s.computed, budget);
      let ok = kv.allocate(s, s.computed + n, s.hashes, 0);
      while (!ok) {
        const victim = running.pop() as Seq;
        this.preempt(victim);
        preempted++;
        if (victim === s) break;
        ok = kv.allocate(s, s.computed + n, s.hashes, 0);
      }
      if (!ok) break;
      s.scheduled = n;
      scheduled.push(s);
      budget -= n;
    }
    return { budget, preempted };
  }

  /** Waiting sequences in FCFS order while budget, max_num_seqs and free blocks allow. */
  private admitWaiting(budget: number, scheduled: Seq[], admitted: Seq[]): number {
    const cfg = this.cfg;
    const kv = this.kv;
    const running = this.running;
    const bs = cfg.block_size;
    while (budget > 0 && running.length < cfg.max_num_seqs && this.waiting.length > 0) {
      const s = this.waiting.peekFront() as Seq;
      if (s.aborted) {
        this.waiting.popFront();
        continue;
      }
      // A swapped-out sequence brings its KV back from host memory; otherwise, at least one token
      // must be computed to sample from, so never take the whole prompt from cache.
      const cachedBlocks = s.swapped > 0 ? 0 : Math.min(kv.matchPrefix(s.hashes), Math.floor((s.total - 1) / bs));
      const cachedTokens = s.swapped > 0 ? s.swapped : cachedBlocks * bs;
      const remaining = s.total - cachedTokens;
      if (!cfg.enable_chunked_prefill && remaining > budget) break;
      const n = Math.min(remaining, budget);
      // reserve-full (TensorRT-LLM's GUARANTEED_NO_EVICT): admitted only with KV for the whole
      // sequence, prompt + max output, so a running sequence's KV never has to grow.
      const reserve = cfg.admission === 'reserve-full' ? Math.max(cachedTokens + n, s.prompt + s.maxOutput) : cachedTokens + n;
      if (!kv.allocate(s, reserve, s.hashes, cachedBlocks)) break;
      this.waiting.popFront();
      this.waitingLive--;
      if (s.swapped > 0) {
        this.swapMs += this.swapTimeMs(s.swapped);
        s.swapped = 0;
      }
      s.computed = cachedTokens;
      s.cached_tokens = cachedTokens;
      this.counters.prefix_queries += s.total;
      this.counters.prefix_hits += cachedTokens;
      s.scheduled = n;
      running.push(s);
      scheduled.push(s);
      budget -= n;
      if (!s.admitted) {
        s.admitted = true;
        admitted.push(s);
      }
    }
    return budget;
  }

  /** Adds a step's time to the prefill and decode totals (see EngineCounters.prefill_ms). */
  private splitStepTime(duration_ms: number, all: StepShape, decode: StepShape): void {
    const c = this.counters;
    if (decode.seqs === 0) c.prefill_ms += duration_ms;
    else if (decode.seqs === all.seqs) c.decode_ms += duration_ms;
    else {
      const prefill: StepShape = { tokens: all.tokens - decode.tokens, seqs: all.seqs - decode.seqs, attn_ctx: all.attn_ctx - decode.attn_ctx, kv_tokens: all.kv_tokens - decode.kv_tokens };
      const p = this.roofline.stepMs(prefill);
      const d = this.roofline.stepMs(decode);
      c.prefill_ms += (duration_ms * p) / (p + d);
      c.decode_ms += (duration_ms * d) / (p + d);
    }
  }

  /** Host-link time to move `tokens` of KV between GPU and host memory (each GPU its 1/tp share over its own link), ms. */
  private swapTimeMs(tokens: number): number {
    return (tokens * this.roofline.kvBytesPerToken) / this.cfg.tensor_parallel / (this.cfg.swap_bandwidth / 1000);
  }

  /**
   * Preemption: free the KV and requeue at the front; output so far is kept. Recompute re-prefills
   * it later; swap copies the KV to host memory now and back on readmission.
   */
  private preempt(s: Seq): void {
    this.kv.release(s);
    if (this.cfg.admission === 'preempt-swap') {
      s.swapped = s.computed;
      this.swapMs += this.swapTimeMs(s.computed);
    }
    s.computed = 0;
    s.scheduled = 0;
    this.waiting.pushFront(s);
    this.waitingLive++;
    this.counters.preemptions++;
  }
}
