/**
 * The server-side view of a run, as result.json carries it (`server`, docs/observe.md): where the
 * series came from, and each normalized series summarized over the run's measured span.
 */
import type { SeriesId } from './engines.js';
import { SERIES_IDS } from './engines.js';
import type { SourceReport } from './scraper.js';
import type { Snapshot } from './snapshot.js';
import { summarizeSeries, windowsOf, type SeriesSummary } from './series.js';

export const SERVER_OBSERVATION_VERSION = 1;

export interface ServerObservation {
  version: number;
  /** scrape: polled /metrics endpoints; prometheus: range queries to a Prometheus server. */
  mode: 'scrape' | 'prometheus';
  interval_ms: number;
  sources: SourceReport[];
  /** The span summarized, on the run clock (ms): the measured phase. */
  span_ms: { from: number; to: number };
  series: Partial<Record<SeriesId, SeriesSummary>>;
  /** Counter resets or a changed process start time: the server restarted during the run. */
  restarts: number;
  /** Series no scraped engine provides (e.g. TGI has no KV usage; no DCGM endpoint). */
  missing: SeriesId[];
}

export function observationOf(
  snapshots: readonly Snapshot[],
  sources: SourceReport[],
  mode: ServerObservation['mode'],
  intervalMs: number,
  fromMs: number,
  toMs: number,
): ServerObservation {
  const windows = windowsOf(snapshots);
  const series = summarizeSeries(windows, fromMs, toMs);
  const restarts = windows.filter((w) => w.end_ms > fromMs && w.start_ms < toMs).reduce((a, w) => a + (w.resets > 0 ? 1 : 0), 0);
  return {
    version: SERVER_OBSERVATION_VERSION,
    mode,
    interval_ms: intervalMs,
    sources,
    span_ms: { from: fromMs, to: toMs },
    series,
    restarts,
    missing: SERIES_IDS.filter((id) => series[id] === undefined),
  };
}
