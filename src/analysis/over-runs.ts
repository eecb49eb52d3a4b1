/**
 * A figure over repeated runs of one spec: its mean, the between-run standard deviation and a
 * t-interval of the mean (repeats.json, docs/repeats.md); and the noise band a new run of the
 * spec should fall in, from its past runs (trend --band, compare --against-history).
 *
 *   mean ± t(1 − α/2, n − 1) · s / √n              interval of the mean (n ≥ 2)
 *   mean ± t(1 − α/2, n − 1) · s · √(1 + 1/n)      prediction interval of one more run (n ≥ 3)
 */
import { tQuantile } from './student-t.js';

export interface SpreadOverRuns {
  n: number;
  mean: number;
  /** The sample standard deviation (n − 1); null with one run. */
  sd: number | null;
  /** The interval of the mean at `confidence`; null with one run. */
  ci: [number, number] | null;
  confidence: number;
}

function meanSd(values: readonly number[]): { n: number; mean: number; sd: number | null } {
  const n = values.length;
  const mean = values.reduce((s, x) => s + x, 0) / n;
  const sd = n > 1 ? Math.sqrt(values.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1)) : null;
  return { n, mean, sd };
}

/** Null for no values. */
export function spreadOverRuns(values: readonly number[], confidence: number): SpreadOverRuns | null {
  if (values.length === 0) return null;
  const { n, mean, sd } = meanSd(values);
  if (sd === null) return { n, mean, sd, ci: null, confidence };
  const half = tQuantile(1 - (1 - confidence) / 2, n - 1) * (sd / Math.sqrt(n));
  return { n, mean, sd, ci: [mean - half, mean + half], confidence };
}

/** The fewest past runs a noise band rests on: with two, s has one degree of freedom and t(97.5%) is 12.7. */
export const MIN_BAND_RUNS = 3;

export interface NoiseBand {
  /** Past runs the band rests on. */
  runs: number;
  mean: number;
  sd: number;
  band: [number, number];
  confidence: number;
}

/** The prediction interval of one more run from `past` (≥ MIN_BAND_RUNS values; the caller refuses fewer). */
export function noiseBand(past: readonly number[], confidence: number): NoiseBand {
  if (past.length < MIN_BAND_RUNS) throw new RangeError(`noiseBand: needs at least ${MIN_BAND_RUNS} runs, got ${past.length}`);
  const { n, mean, sd } = meanSd(past);
  const half = tQuantile(1 - (1 - confidence) / 2, n - 1) * sd! * Math.sqrt(1 + 1 / n);
  return { runs: n, mean, sd: sd!, band: [mean - half, mean + half], confidence };
}

/** Where a new value lies against the band, read with the figure's direction. */
export function judgeAgainstBand(value: number, band: NoiseBand, better: 'lower' | 'higher'): 'worse' | 'better' | 'within' {
  const [lo, hi] = band.band;
  if (value > hi) return better === 'lower' ? 'worse' : 'better';
  if (value < lo) return better === 'lower' ? 'better' : 'worse';
  return 'within';
}
