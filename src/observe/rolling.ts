/**
 * Snapshots kept for a rolling window (watch): enough to cover the window plus the interval
 * before it, so memory stays bounded however long a service is watched.
 */
import type { Snapshot } from './snapshot.js';
import { summarizeSeries, windowsOf, type SeriesSummary, type ScrapeWindow } from './series.js';
import type { SeriesId } from './engines.js';

export class RollingSeries {
  private snaps: Snapshot[] = [];

  constructor(private readonly windowMs: number) {}

  add(snaps: readonly Snapshot[]): void {
    this.snaps.push(...snaps);
  }

  /** Windows between scrapes that end within the last `windowMs` before `nowMs`; older snapshots are dropped. */
  windows(nowMs: number): ScrapeWindow[] {
    const from = nowMs - this.windowMs;
    // keep the newest snapshot at or before `from` per source: it opens the first window
    const keep: Snapshot[] = [];
    const sources = new Set(this.snaps.map((s) => s.source));
    for (const src of sources) {
      const list = this.snaps.filter((s) => s.source === src).sort((a, b) => a.t_ms - b.t_ms);
      let first = 0;
      while (first + 1 < list.length && (list[first + 1] as Snapshot).t_ms <= from) first++;
      keep.push(...list.slice(first));
    }
    this.snaps = keep;
    return windowsOf(keep).filter((w) => w.end_ms > from);
  }

  summary(nowMs: number): Partial<Record<SeriesId, SeriesSummary>> {
    return summarizeSeries(this.windows(nowMs));
  }
}
