/** The complete run spec schema: the spec module's sections plus the workload's. */
import type { z } from 'zod';
import { buildRunSpecSchema } from '../config/schema.js';
import { objectiveListSchema } from '../config/slo.js';
import { OBJECTIVE_METRICS } from '../metrics/index.js';
import { WorkloadSpecSchema } from '../workload/index.js';

/** The `slos:` list / `--slo`: objectives over the metrics of the registry. */
export const SloListSchema = objectiveListSchema(OBJECTIVE_METRICS);

export const RunSpecSchema = buildRunSpecSchema(WorkloadSpecSchema.prefault({}), SloListSchema);
export type RunSpec = z.output<typeof RunSpecSchema>;
