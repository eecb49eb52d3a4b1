/**
 * How late the real-time drivers fire against their own schedule: lateness = actual tick
 * time − scheduled due time (ms). Fixed 0.05 ms buckets up to 50 ms (+ overflow), so
 * recording is O(1) and allocation-free at any tick rate.
 */
const BUCKET_MS = 0.05;
const BUCKETS = 1000;

export class LatenessStats {
  private readonly counts = new Uint32Array(BUCKETS + 1);
  count = 0;
  maxMs = 0;
  sumMs = 0;

  record(latenessMs: number): void {
    const v = latenessMs > 0 ? latenessMs : 0;
    const b = Math.min(BUCKETS, Math.floor(v / BUCKET_MS));
    this.counts[b] = (this.counts[b] as number) + 1;
    this.count++;
    this.sumMs += v;
    if (v > this.maxMs) this.maxMs = v;
  }

  /** Upper edge of the bucket holding the p-th percentile (p in 0..100); 0 when empty. */
  percentile(p: number): number {
    if (this.count === 0) return 0;
    const rank = Math.ceil((p / 100) * this.count);
    let seen = 0;
    for (let b = 0; b <= BUCKETS; b++) {
      seen += this.counts[b] as number;
      if (seen >= rank) return b === BUCKETS ? this.maxMs : (b + 1) * BUCKET_MS;
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
