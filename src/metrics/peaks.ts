/**
 * Per-second series over the measured window and their peaks.
 *
 * Buckets are 1 s wide and start at the window start (the first measure-phase sent_ms):
 * bucket k covers [start + 1000k, start + 1000(k+1)). There are max(1, ⌈duration_s⌉)
 * buckets; an instant at exactly the window end falls in the last one, so the last bucket
 * may be shorter than a second (as in vLLM).
 *
 *   window  |0s        |1s        |2s   end|
 *   req A   [====================)              in flight over [sent_ms, end_ms)
 *   req B          [=======)
 *   chunks   ·  ·  ·  · | · ·  ·  ·|  ·  ·     each ok request's output_tokens spread over its chunks
 */

import type { RequestRecord } from '../record/record.js';
import { addChunkTokens, type TokenSpread } from './chunk-gaps.js';

export interface SecondBuckets {
  /** Window start (ms); bucket k starts at start_ms + 1000·k. */
  start_ms: number;
  /**
   * Output tokens of ok requests per bucket. Each chunk of a request carries
   * output_tokens / chunk_count tokens (so a server that packs several tokens per chunk is
   * counted by its usage, not its chunks); a request with no chunks puts all at end_ms.
   */
  output_tokens: Float64Array;
  /** Most requests (any status) in flight at one instant within the bucket. */
  max_concurrency: Float64Array;
}

/**
 * Per-second output tokens and concurrency of `records` (already limited to the ones to
 * count, e.g. the measure phase) over the window [startMs, endMs]. `spread`: the output tokens
 * already spread (tokenSeconds of the same window, filled with addChunkTokens of producesTokens' records).
 */
export function secondBuckets(records: readonly RequestRecord[], startMs: number, endMs: number, spread?: TokenSpread): SecondBuckets {
  const { bucketOf, into } = spread ?? tokenSeconds(startMs, endMs);
  if (!spread) addChunkTokens(records.filter(producesTokens), bucketOf, into);
  return { start_ms: startMs, output_tokens: into, max_concurrency: concurrencyBuckets(records, into.length, bucketOf, startMs) };
}

/** The records whose output tokens the per-second series counts: ok ones with any. */
export const producesTokens = (r: RequestRecord): boolean => r.status === 'ok' && r.output_tokens > 0;

/**
 * The empty per-second output token series of the window [startMs, endMs] and its bucket of a
 * time: to fill while visiting the chunks for another figure (compute.ts), then give to
 * secondBuckets as `spread`.
 */
export function tokenSeconds(startMs: number, endMs: number): TokenSpread {
  const n = Math.max(1, Math.ceil((endMs - startMs) / 1000));
  return { take: producesTokens, bucketOf: (t) => Math.min(n - 1, Math.max(0, Math.floor((t - startMs) / 1000))), into: new Float64Array(n) };
}

/**
 * Sweep over sorted send and end times. Between events the in-flight count is constant;
 * at one instant every end is applied before every start (intervals are half-open), and
 * only the count after all events of that instant is recorded.
 */
function concurrencyBuckets(
  records: readonly RequestRecord[],
  n: number,
  bucketOf: (t: number) => number,
  startMs: number,
): Float64Array {
  const m = records.length;
  // Send times in record order when they never go back (a run read back, in id order): read from
  // the records, not a sorted copy of a value per record. (Equal to the sorted copy but for the
  // order of −0 and 0, which the sweep's comparisons do not tell apart.)
  let sendsInOrder = true;
  for (let k = 1; k < m && sendsInOrder; k++) sendsInOrder = records[k]!.sent_ms >= records[k - 1]!.sent_ms;
  const sorted = sendsInOrder ? null : new Float64Array(m);
  const ends = new Float64Array(m);
  for (let k = 0; k < m; k++) {
    const r = records[k]!;
    if (sorted) sorted[k] = r.sent_ms;
    ends[k] = Math.max(r.end_ms, r.sent_ms);
  }
  sorted?.sort();
  ends.sort();
  const startAt = sorted ? (k: number) => sorted[k]! : (k: number) => records[k]!.sent_ms;
  const max = new Float64Array(n);
  let count = 0;
  let i = 0;
  let j = 0;
  let b = 0;
  while (i < m || j < m) {
    const t = i < m && startAt(i) < ends[j]! ? startAt(i) : ends[j]!;
    const k = bucketOf(t);
    // Buckets entered since the last event hold `count` from their start up to t.
    for (let q = b + 1; q <= k; q++) if (q < k || startMs + 1000 * q < t) max[q] = Math.max(max[q]!, count);
    b = Math.max(b, k);
    while (j < m && ends[j] === t) {
      count--;
      j++;
    }
    while (i < m && startAt(i) === t) {
      count++;
      i++;
    }
    max[k] = Math.max(max[k]!, count);
  }
  return max;
}

/** Largest element (0 for an empty array). */
export function peak(values: Float64Array): number {
  let m = 0;
  for (let i = 0; i < values.length; i++) m = Math.max(m, values[i]!);
  return m;
}
