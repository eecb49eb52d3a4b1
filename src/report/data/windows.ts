/**
 * The report's time base: fixed windows from the run's t = 0, wide enough that a long run
 * has at most ~200 of them (the page stays small) and a short one still has a few dozen.
 */

/** Window widths the report picks from, in seconds. */
const NICE_WINDOWS_S = [0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 86400];

/**
 * The narrowest nice width ≥ max(span / 200, min(1 s, span / 20)): at most ~200 windows, and
 * 1-second windows (the throughput peaks' bucket) whenever the run is long enough for them.
 */
export function chooseWindowS(spanS: number): number {
  const want = Math.max(spanS / 200, Math.min(1, spanS / 20));
  return NICE_WINDOWS_S.find((w) => w >= want) ?? NICE_WINDOWS_S[NICE_WINDOWS_S.length - 1]!;
}

export interface Windows {
  width_s: number;
  count: number;
  /** Window index of a time in ms, clamped to the first and last window. */
  of(tMs: number): number;
}

export function makeWindows(endMs: number): Windows {
  const span = Math.max(endMs, 0) / 1000;
  const width = chooseWindowS(span);
  const count = Math.max(1, Math.ceil(span / width));
  const widthMs = width * 1000;
  return { width_s: width, count, of: (t) => Math.min(count - 1, Math.max(0, Math.floor(t / widthMs))) };
}
