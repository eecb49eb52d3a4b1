/**
 * The metrics an SLO (objective) may name, derived from the registry: every per-request or
 * pooled metric is a distribution (`p95(ttft)`), every run metric one value per window
 * (`error_rate`, `output_throughput`, `goodput`). A metric added to the registry is usable in
 * an SLO with no other change. Names drop the `_ms` suffix; the full id is accepted too.
 */

import type { ObjectiveCatalog, ObjectiveMetricInfo } from '../config/slo.js';
import type { MetricDef } from './metric-def.js';
import { METRICS, type MetricRegistry } from './registry.js';

export function objectiveCatalog(registry: MetricRegistry = METRICS): ObjectiveCatalog {
  const out = new Map<string, ObjectiveMetricInfo>();
  for (const d of registry.all) {
    const info = infoOf(d);
    out.set(info.name, info);
    out.set(d.id, info);
  }
  return out;
}

function infoOf(d: MetricDef): ObjectiveMetricInfo {
  if (d.kind === 'run') return { id: d.id, name: d.id, kind: 'run', unit: d.unit };
  return { id: d.id, name: d.id.replace(/_ms$/, ''), kind: 'distribution', unit: d.unit };
}

/** The catalog of the built-in registry. */
export const OBJECTIVE_METRICS: ObjectiveCatalog = objectiveCatalog();
