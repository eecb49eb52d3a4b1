/**
 * Per-request SLOs and goodput. A request meets an SLO when its value is ≤ threshold_ms;
 * where the metric is undefined for it, the metric's `sloWhenUndefined` decides (TPOT of a
 * 1-token output and ITL of a 1-chunk output meet; a missing TTFT fails). Only ok requests
 * can be good.
 */

import type { RequestRecord } from '../record/record.js';
import { SLO_METRICS } from './registry.js';
import type { GoodputSlo as Slo } from '../config/slo.js';

export function meetsSlo(r: RequestRecord, slo: Slo): boolean {
  const def = SLO_METRICS[slo.metric];
  const v = def.kind === 'pooled' ? def.worst(r) : def.value(r);
  if (v === null) return def.sloWhenUndefined === 'meets';
  return v <= slo.threshold_ms;
}

/** ok and meeting every SLO (vacuously true for an empty list). */
export function isGood(r: RequestRecord, slos: readonly Slo[]): boolean {
  if (r.status !== 'ok') return false;
  for (const s of slos) if (!meetsSlo(r, s)) return false;
  return true;
}

/** @throws RangeError when a threshold is not a finite number ≥ 0 or a metric is unknown. */
export function checkSlos(slos: readonly Slo[]): void {
  for (const s of slos) {
    if (!Object.hasOwn(SLO_METRICS, s.metric)) throw new RangeError(`unknown SLO metric "${String(s.metric)}"`);
    if (!(Number.isFinite(s.threshold_ms) && s.threshold_ms >= 0)) {
      throw new RangeError(`SLO ${s.metric}: threshold_ms must be a finite number ≥ 0, got ${s.threshold_ms}`);
    }
  }
}

/** The goodput metric a user-facing name denotes (`ttft`, `ttft_ms`, …); null if none. */
export { goodputMetricFromName as sloMetricFromName } from '../config/slo.js';
