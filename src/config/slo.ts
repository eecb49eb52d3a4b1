import { parseDurationMs, UnitError } from './units.js';

/** Per-request latency metrics an SLO may bound (ids as in src/metrics). */
export const SLO_METRICS = [
  'ttft_ms',
  'tpot_ms',
  'itl_ms',
  'e2el_ms',
  'ttft_from_schedule_ms',
  'e2el_from_schedule_ms',
] as const;
export type SloMetric = (typeof SLO_METRICS)[number];

export interface SloSpec {
  metric: SloMetric;
  threshold_ms: number;
}

/**
 * `ttft:500`, `tpot:50ms`, `e2el:10s` → SLO. Bare numbers are milliseconds (as vLLM's
 * --goodput takes them). Metric names may omit the `_ms` suffix.
 */
export function parseSlo(text: string): SloSpec {
  const idx = text.indexOf(':');
  if (idx <= 0) throw new UnitError(`expected METRIC:THRESHOLD such as ttft:500 or e2el:10s, got "${text}"`);
  const name = text.slice(0, idx).trim().toLowerCase();
  const metric = (name.endsWith('_ms') ? name : `${name}_ms`) as SloMetric;
  if (!SLO_METRICS.includes(metric)) {
    throw new UnitError(
      `unknown SLO metric "${name}" in "${text}"; use one of ${SLO_METRICS.map((m) => m.replace(/_ms$/, '')).join(', ')}`,
    );
  }
  return { metric, threshold_ms: parseDurationMs(text.slice(idx + 1), 'ms') };
}
