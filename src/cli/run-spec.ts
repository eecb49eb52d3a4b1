/** The complete run spec schema: the spec module's sections plus the workload's. */
import type { z } from 'zod';
import { buildRunSpecSchema } from '../config/schema.js';
import { WorkloadSpecSchema } from '../workload/index.js';

export const RunSpecSchema = buildRunSpecSchema(WorkloadSpecSchema.prefault({}));
export type RunSpec = z.output<typeof RunSpecSchema>;
