/**
 * The grid search that set the decode-attention curve's defaults (attn_full_heads_dim,
 * attn_heads_exponent, attn_ctx_half_tokens; docs/simulator.md §Step time), on the fitting rows
 * only: `npx tsx test/sim/fidelity/attention-grid.ts`. Least median error over all figures wins.
 */
import { CASES } from './cases.js';
import { runCase, medianErrors } from './run-case.js';

const fit = CASES.filter((c) => !c.held_out);
for (const ref of [128, 256, 512, 1024]) for (const exp of [0, 0.25, 0.5]) for (const half of [0, 64, 128]) {
  if (exp === 0 && ref !== 512) continue;

  const rs = fit.flatMap((c) => runCase(c, { attn_heads_exponent: exp, attn_full_heads_dim: ref, attn_ctx_half_tokens: half }));
  const e = medianErrors(rs);
  const meanAbs = rs.reduce((a, r) => a + Math.abs(r.ratio - 1), 0) / rs.length;
  console.log(`ref ${ref} exp ${exp} half ${half}: ttft ${(e.ttft!*100).toFixed(1)} tpot ${(e.tpot!*100).toFixed(1)} thr ${(e.throughput!*100).toFixed(1)} all ${(e.all!*100).toFixed(1)} mean ${(meanAbs*100).toFixed(1)}`);
}
