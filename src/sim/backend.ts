/**
 * The contract between the HTTP layer and whatever decides *when* tokens come out:
 * fixed delays (fixed-backend.ts) or the engine model in real time (engine-backend.ts).
 * Backends call sinks from one batched pass per timer tick, so a sink must do little.
 */

/** One generation the backend must time. Lengths are already decided by the HTTP layer. */
export interface GenRequest {
  /** Server-unique request number. */
  id: number;
  /** When the request body was fully received (ms, performance.now() clock). */
  arrivalMs: number;
  promptTokens: number;
  /** Tokens to emit (max_tokens, or the natural EOS length when ignore_eos is off). */
  outputTokens: number;
  /** Hashes of the prompt's full KV blocks, chained (prefix caching); may be empty. */
  blockHashes: readonly number[];
}

/** Receives the timing of one request. `atMs` is the scheduled (not the late) time. */
export interface TokenSink {
  /** The backend admitted the request (engine: first scheduled in a step). */
  onAdmit(atMs: number): void;
  /** Token k (0-based) is ready at atMs. The sink may hold it until flush(). */
  onToken(k: number, atMs: number): void;
  /**
   * Write what onToken produced since the last flush, as one socket write. Backends call it
   * after each sink's tokens of a pass, so a stream that fell behind catches up with one write.
   */
  flush(): void;
  /** All tokens emitted (called right after the last onToken). */
  onDone(atMs: number): void;
  /** The backend refused the request (e.g. longer than the model or the whole KV cache). */
  onFail(message: string, httpStatus: number): void;
}

export interface BackendStats {
  running: number;
  waiting: number;
  /** KV cache blocks in use / total, in [0, 1]. */
  kvUsage: number;
  /** Cumulative since start: recompute preemptions, prefix-cache tokens queried and hit. */
  preemptions: number;
  prefixQueries: number;
  prefixHits: number;
  /** KV cache geometry (0 when the backend has no cache). */
  numBlocks: number;
  blockSize: number;
  /** The engine model's GPU activity (absent for the fixed-delay backend). */
  gpu?: GpuActivity;
  /** Steps (fixed timing: passes) served over LATE_STEP_MS after their simulated time (late-steps.ts). */
  lateSteps?: number;
}

/**
 * Cumulative GPU activity of the modelled steps, from which /metrics derives DCGM-named series:
 * busy time (any step running), the share of it bound by compute and by memory bandwidth (the
 * roofline's two terms), and memory held per GPU (weights, reserve and KV blocks in use).
 */
export interface GpuActivity {
  gpus: number;
  busyMs: number;
  computeMs: number;
  memoryMs: number;
  memUsedBytesPerGpu: number;
  memTotalBytesPerGpu: number;
}

export interface Backend {
  submit(req: GenRequest, sink: TokenSink): void;
  /** Stop generating for this request (client went away). Idempotent. */
  cancel(id: number): void;
  stats(): BackendStats;
  /** Cancels every timer; pending requests get no more callbacks. */
  close(): void;
}
