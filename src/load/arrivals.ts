/**
 * Open-loop arrival schedules: pure, seeded generators of send times (ms from the start).
 * They only say *when*; timers, concurrency limits and stopping belong to the runner.
 *
 * Inter-arrival gaps, for rate λ requests/s and burstiness k:
 * - constant: 1000/λ ms every time
 * - poisson:  Exponential with mean 1000/λ ms (Gamma with k = 1)
 * - gamma:    Gamma(shape = k, scale = 1000/(λ·k)) ms — mean 1000/λ, CV = 1/√k (as vLLM)
 * λ = ∞ sends everything at t = 0.
 */
import { createRng, sampleExponential, sampleGamma } from '../util/rng.js';

export type ArrivalKind = 'poisson' | 'gamma' | 'constant';

export interface ArrivalOptions {
  rate: number;
  burstiness: number;
  kind: ArrivalKind;
  seed: number;
}

/** The arrival kind the flags imply: explicit choice, else gamma when burstiness ≠ 1, else poisson. */
export function resolveArrivalKind(kind: ArrivalKind | null, burstiness: number): ArrivalKind {
  if (kind) return kind;
  return burstiness === 1 ? 'poisson' : 'gamma';
}

/** Returns a function giving the next gap in ms. */
export function gapSampler(opts: ArrivalOptions): () => number {
  const { rate, burstiness, kind } = opts;
  if (!(rate > 0)) throw new RangeError(`rate must be > 0, got ${rate}`);
  if (rate === Infinity) return () => 0;
  const meanMs = 1000 / rate;
  // A distinct stream from the workload's so that changing the rate never changes the prompts.
  const rng = createRng(opts.seed ^ 0x5eed_a771);
  switch (kind) {
    case 'constant':
      return () => meanMs;
    case 'poisson':
      return () => sampleExponential(rng, meanMs);
    case 'gamma':
      return () => sampleGamma(rng, burstiness, meanMs / burstiness);
  }
}

/**
 * Absolute send offsets: the first request goes at t = 0 (as vLLM sends its first
 * request immediately), each next one a sampled gap later.
 */
export function* arrivalTimes(opts: ArrivalOptions): Generator<number, never> {
  const gap = gapSampler(opts);
  let t = 0;
  for (;;) {
    yield t;
    t += gap();
  }
}
