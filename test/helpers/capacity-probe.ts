/** A capacity self-test with fixed figures (the real one is wall-clock: test/timing/): one thread, 400 req/s of the probe's shape saturated → 200 req/s accurately. */
import type { ProbeFigures } from '../../src/runner/capacity-check.js';

export const fixedProbe = (o: Partial<ProbeFigures> = {}) => async (p: { concurrency: number; outputTokens: number }): Promise<ProbeFigures> => ({
  requests_per_s: 400,
  output_tokens_per_s: 400 * p.outputTokens,
  dispatch_lag_p99_ms: 9,
  idle_lag_p99_ms: 1,
  concurrency: p.concurrency,
  output_tokens: p.outputTokens,
  duration_ms: 1000,
  load_per_core: 0.5,
  ...o,
});
