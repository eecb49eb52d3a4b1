/**
 * How late the real-time drivers serve against their own schedule: lateness = time served −
 * scheduled due time (ms). Buckets: 0.05 ms wide up to 50 ms, then 1 ms wide up to 10.05 s,
 * then one overflow bucket; recording is O(1) and allocation-free at any rate.
 */
const FINE_MS = 0.05;
const FINE = 1000; // 0 … 50 ms
const COARSE_MS = 1;
const COARSE = 10_000; // 50 ms … 10.05 s
const FINE_END = FINE * FINE_MS;

export class LatenessStats {
  private readonly counts = new Uint32Array(FINE + COARSE + 1);
  count = 0;
  maxMs = 0;
  sumMs = 0;

  record(latenessMs: number): void {
    const v = latenessMs > 0 ? latenessMs : 0;
    const b = v < FINE_END ? Math.floor(v / FINE_MS) : Math.min(FINE + COARSE, FINE + Math.floor((v - FINE_END) / COARSE_MS));
    this.counts[b] = (this.counts[b] as number) + 1;
    this.count++;
    this.sumMs += v;
    if (v > this.maxMs) this.maxMs = v;
  }

  /** Upper edge of the bucket holding the p-th percentile (p in 0..100), at most the max; 0 when empty. */
  percentile(p: number): number {
    if (this.count === 0) return 0;
    const rank = Math.max(1, Math.ceil((p / 100) * this.count));
    let seen = 0;
    for (let b = 0; b < this.counts.length; b++) {
      seen += this.counts[b] as number;
      if (seen >= rank) {
        const edge = b < FINE ? (b + 1) * FINE_MS : b < FINE + COARSE ? FINE_END + (b - FINE + 1) * COARSE_MS : this.maxMs;
        return Math.min(edge, this.maxMs);
      }
    }
    return this.maxMs;
  }

  reset(): void {
    this.counts.fill(0);
    this.count = 0;
    this.maxMs = 0;
    this.sumMs = 0;
  }
}
