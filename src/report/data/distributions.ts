/**
 * The latency distributions the report draws, binned (data/bins.ts) from the measure-phase
 * records through the metric definitions, so the report and the figures agree on what
 * TTFT, TPOT, ITL and E2EL are.
 */
import { addChunkTokens, chunkGapVisitor, kept, gapsSpreadingTokens, SLO_METRICS, type TokenSpread } from '../../metrics/index.js';
import type { RequestRecord } from '../../record/record.js';
import { binBatches, binDistribution, type BinnedDistribution } from './bins.js';

export const DISTRIBUTION_METRICS = ['ttft_ms', 'tpot_ms', 'itl_ms', 'e2el_ms'] as const;
export type DistributionMetric = (typeof DISTRIBUTION_METRICS)[number];

export interface MetricDistribution extends BinnedDistribution {
  metric: DistributionMetric;
  label: string;
}

/**
 * `tokens` (time-series.ts seriesTokens of the same records): spread here while ITL's first pass
 * reads the chunks (one pass over every chunk fewer), done on return in any case.
 */
export function runDistributions(records: readonly RequestRecord[], tokens?: TokenSpread): MetricDistribution[] {
  const ok = kept(records, (r) => r.phase === 'measure' && r.status === 'ok');
  let pending = tokens;
  const out = DISTRIBUTION_METRICS.map((metric) => {
    const def = SLO_METRICS[metric];
    const fused = pending && def.kind === 'pooled' && def.chunkGaps ? gapsSpreadingTokens(records, ok, def.fill, pending) : null;
    if (fused) {
      const binned = binBatches(fused.visit);
      fused.done();
      pending = undefined;
      return { metric, label: def.label, ...binned };
    }
    const binned =
      def.kind === 'pooled' && def.chunkGaps
        ? // Per step where records share a step timeline: the same values, far fewer calls; in batches.
          binBatches(chunkGapVisitor(ok, def.fill))
        : def.kind === 'pooled'
        ? binDistribution((emit) => {
            let buf = new Float64Array(256);
            for (const r of ok) {
              const k = def.count(r);
              if (k > buf.length) buf = new Float64Array(k * 2);
              def.fill(r, buf, 0);
              for (let i = 0; i < k; i++) emit(buf[i]!);
            }
          })
        : binDistribution((emit) => {
            for (const r of ok) {
              const v = def.value(r);
              if (v !== null) emit(v);
            }
          });
    return { metric, label: def.label, ...binned };
  });
  if (pending) addChunkTokens(kept(records, pending.take), pending.bucketOf, pending.into);
  return out;
}
