import type { RequestRecord } from '../../record/record.js';
import { ChunkTimes, chunkCount, chunkGapsInto } from '../../record/record-columns.js';

// Chunk times read without an array per record from records held in columns (record-columns.ts).
const chunkTimes = new ChunkTimes();
import type { PooledMetricDef } from '../metric-def.js';

/**
 * ITL (inter-token latency) = every gap chunk_ms[i] − chunk_ms[i−1], i ≥ 1, between
 * consecutive content chunks of ok requests, pooled across requests (so weighted by chunk,
 * as vLLM does). A chunk carrying several tokens yields one gap, not one per token.
 *
 * Per-request SLO (vLLM has none for ITL): met when every gap of the request is
 * ≤ threshold, i.e. its largest gap is; a request with fewer than 2 chunks meets it.
 */
export const itl = {
  kind: 'pooled',
  id: 'itl_ms',
  label: 'ITL',
  unit: 'ms',
  over: 'ok',
  formula: 'chunk_ms[i] − chunk_ms[i−1] for every i ≥ 1, pooled',
  count: (r: RequestRecord) => Math.max(0, chunkCount(r) - 1),
  fill: chunkGapsInto,
  worst: (r: RequestRecord) => {
    const c = chunkTimes.of(r);
    if (c.length < 2) return null;
    let max = -Infinity;
    for (let i = 1; i < c.length; i++) max = Math.max(max, c[i]! - c[i - 1]!);
    return max;
  },
  sloWhenUndefined: 'meets',
  chunkGaps: true,
} as const satisfies PooledMetricDef;
