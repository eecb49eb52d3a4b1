/**
 * The server's prefix cache per sweep stage: the stage's hit rate (prompt tokens served from the
 * cache / prompt tokens looked up, over the stage) and the check that the stages agree. Stages
 * differ in load and in the words of their prompts, not in how much of their prompts the
 * workload itself shares, so their hit rates should agree; a stage far from the others was
 * (partly) served from what an earlier stage left in the cache — or from a shared-prefix
 * workload's first stage warming it — and its latencies are not comparable with theirs.
 */
import type { ServerObservation } from '../observe/observation.js';

/** A stage's prefix-cache figure (sweep.json `stages[].prefix_cache`). */
export interface StagePrefixCache {
  /** Hit tokens / queried tokens over the stage, 0..1; null when the server counted no query. */
  hit_rate: number | null;
  /** `server_metrics`: the scraped /metrics (docs/observe.md `prefix_hit_rate`); `simulator`: the simulated engine's own counters (virtual time). */
  source: 'server_metrics' | 'simulator';
  /** Prompt tokens looked up and found (virtual time only: a scraped ratio has no token counts). */
  queried_tokens?: number;
  hit_tokens?: number;
}

/**
 * How far (absolute, in hit-rate points: 0.10 = 10 percentage points) a stage's hit rate may be
 * from the median of the other stages' before it is flagged. Stages with fresh prompts of one
 * workload agree to within a few points (only the share of each prompt in its last, partial KV
 * block varies with the lengths drawn); a stage served from an earlier stage's prompts hits most
 * of its prompt tokens. Ten points lies between the two. A stated design choice, not a measurement.
 */
export const PREFIX_HIT_MARGIN = 0.1;

/** sweep.json `prefix_cache`: the check across stages. */
export interface PrefixCacheCheck {
  margin: number;
  /** Stages with a hit rate (the others had none scraped). */
  stages: number[];
  /** Stages whose hit rate is more than `margin` from the median of the other stages'. */
  flagged: Array<{ stage: number; hit_rate: number; others_median: number }>;
}

/** A scraped stage's figure; null when the server exposes no prefix-cache series. */
export function scrapedPrefixCache(server: ServerObservation | null | undefined): StagePrefixCache | null {
  const s = server?.series.prefix_hit_rate;
  if (!s) return null;
  return { hit_rate: s.mean, source: 'server_metrics' };
}

/** The simulated engine's figure from its counters over the stage. */
export function simulatedPrefixCache(queried: number, hit: number): StagePrefixCache {
  return { hit_rate: queried > 0 ? hit / queried : null, source: 'simulator', queried_tokens: queried, hit_tokens: hit };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** The check; null when fewer than two stages have a hit rate (nothing to compare). */
export function checkPrefixCache(stages: ReadonlyArray<{ index: number; prefix_cache?: StagePrefixCache | null }>, margin = PREFIX_HIT_MARGIN): PrefixCacheCheck | null {
  const rated = stages.flatMap((s) => (s.prefix_cache?.hit_rate !== null && s.prefix_cache?.hit_rate !== undefined ? [{ stage: s.index, rate: s.prefix_cache.hit_rate }] : []));
  if (rated.length < 2) return null;
  const flagged: PrefixCacheCheck['flagged'] = [];
  for (const r of rated) {
    const others = median(rated.filter((o) => o !== r).map((o) => o.rate));
    // A hair of tolerance: a rate exactly `margin` away is not flagged.
    if (Math.abs(r.rate - others) > margin + 1e-12) flagged.push({ stage: r.stage, hit_rate: r.rate, others_median: others });
  }
  return { margin, stages: rated.map((r) => r.stage), flagged };
}

/** One line per flagged stage for a summary; empty when none is. */
export function prefixCacheLines(check: PrefixCacheCheck | null | undefined, label: (stage: number) => string): string[] {
  if (!check || check.flagged.length === 0) return [];
  const pct = (v: number) => `${Number((v * 100).toFixed(1))}%`;
  return check.flagged.map(
    (f) =>
      `prefix cache: stage ${f.stage + 1} (${label(f.stage)}) hit ${pct(f.hit_rate)} of its prompt tokens vs the other stages' median ${pct(f.others_median)} (margin ${Number((check.margin * 100).toFixed(1))} points): the cache served it unlike the others, so its latencies do not compare with theirs`,
  );
}
