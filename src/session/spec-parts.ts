/**
 * The parts of a run spec that analyze reads without the whole run spec (run-spec.ts): building
 * RunSpecSchema loads every workload kind and builds its zod schemas at import, which a
 * re-judged saved run never needs.
 */
import { isPluginPath, resolveEndpointKind } from '../client/endpoints/registry.js';
import type { InputUnit } from '../record/input-unit.js';
import { objectiveListSchema } from '../config/slo.js';
import { OBJECTIVE_METRICS } from '../metrics/index.js';

/** The `slos:` list / `--slo`: objectives over the metrics of the registry. */
export const SloListSchema = objectiveListSchema(OBJECTIVE_METRICS);

/**
 * What the spec's requests' inputs are (record/input-unit.ts), from its endpoint kind: `documents`
 * for rerank and score. A plugin's kind, or a target no kind is found for, counts `inputs`.
 */
export function specInputUnit(target: { endpoint: string; endpoint_type?: string | null | undefined }): InputUnit {
  if (isPluginPath(target.endpoint_type ?? undefined)) return 'inputs';
  try {
    return resolveEndpointKind(target.endpoint_type ?? undefined, target.endpoint).inputUnit ?? 'inputs';
  } catch {
    return 'inputs';
  }
}
