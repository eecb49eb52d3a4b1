/**
 * SLOs judged from the server's own histograms (infermeter watch): the objective's statistic of
 * ttft, tpot or e2el over its window (the watch window when it states none), at every refresh.
 * Attainment is the share of refreshes at which the objective held; below its target, the
 * objective is breached (an alert line, and exit 3 at the end).
 */
import type { Objective } from '../config/slo.js';
import { meets } from '../metrics/objectives.js';
import type { SeriesId } from './engines.js';
import { addHistogram, histogramQuantile, type ScrapeWindow } from './series.js';
import type { HistogramValue } from './snapshot.js';

/** Objective metrics (registry ids, ms) the server's histograms measure. */
const SERVER_SERIES: Readonly<Record<string, SeriesId>> = { ttft_ms: 'ttft_s', tpot_ms: 'tpot_s', e2el_ms: 'e2el_s' };

/** Why an objective cannot be judged from server metrics, or null when it can. */
export function unsupportedReason(o: Objective): string | null {
  if (!(o.metric in SERVER_SERIES)) return `${o.text}: watch judges SLOs on ttft, tpot and e2el, from the server's histograms`;
  if (o.statistic === null) return `${o.text}: give a statistic, e.g. p95(${o.metric.replace(/_ms$/, '')})`;
  return null;
}

function merged(windows: readonly ScrapeWindow[], id: SeriesId): HistogramValue | null {
  let out: HistogramValue | null = null;
  for (const w of windows) {
    const v = w.values[id];
    if (v?.kind === 'histogram') out = addHistogram(out, v.hist);
  }
  return out;
}

/** The statistic of a histogram, in ms; null without observations. */
function statisticMs(o: Objective, h: HistogramValue): number | null {
  if (h.count <= 0) return null;
  const s = o.statistic;
  if (s === null) return null;
  if (s.kind === 'mean') return (h.sum / h.count) * 1000;
  if (s.kind === 'max') {
    // the upper bound of the highest non-empty bucket (the +Inf bucket: its lower bound)
    let i = h.counts.length - 1;
    while (i > 0 && h.counts[i] === h.counts[i - 1]) i--;
    const le = h.le[i] as number;
    return (le === Infinity ? (h.le[i - 1] ?? 0) : le) * 1000;
  }
  const q = histogramQuantile(s.p / 100, h);
  return q === null ? null : q * 1000;
}

export interface ObjectiveState {
  text: string;
  /** The statistic over the latest window (ms); null when no request finished in it. */
  value_ms: number | null;
  held: boolean | null;
  evaluations: number;
  passes: number;
  attainment: number | null;
  target: number;
  breached: boolean;
}

export class ServerObjective {
  private evaluations = 0;
  private passes = 0;

  constructor(
    readonly objective: Objective,
    private readonly defaultWindowMs: number,
  ) {}

  /** Judges the objective over the windows ending in the last window length before `nowMs`. */
  evaluate(windows: readonly ScrapeWindow[], nowMs: number): ObjectiveState {
    const o = this.objective;
    const span = o.window_ms ?? this.defaultWindowMs;
    const hist = merged(windows.filter((w) => w.end_ms > nowMs - span), SERVER_SERIES[o.metric] as SeriesId);
    const value = hist ? statisticMs(o, hist) : null;
    const held = value === null ? null : meets(value, o.op, o.threshold);
    if (held !== null) {
      this.evaluations++;
      if (held) this.passes++;
    }
    const attainment = this.evaluations === 0 ? null : this.passes / this.evaluations;
    return { text: o.text, value_ms: value, held, evaluations: this.evaluations, passes: this.passes, attainment, target: o.attainment, breached: attainment !== null && attainment < o.attainment };
  }
}
