/** The complete run spec schema: the spec module's sections plus the workload's. */
import type { z } from 'zod';
import { UserError } from '../errors/user-error.js';
import { normalizeBaseUrl } from '../config/base-url.js';
import { checkObjectivesUsable } from '../config/slo-check.js';
import { buildRunSpecSchema } from '../config/schema.js';
import { objectiveListSchema } from '../config/slo.js';
import { OBJECTIVE_METRICS } from '../metrics/index.js';
import { WorkloadSpecSchema } from '../workload/index.js';

/** The `slos:` list / `--slo`: objectives over the metrics of the registry. */
export const SloListSchema = objectiveListSchema(OBJECTIVE_METRICS);

export const RunSpecSchema = buildRunSpecSchema(WorkloadSpecSchema.prefault({}), SloListSchema);
export type RunSpec = z.output<typeof RunSpecSchema>;
/** A run spec as written in a config file or passed to the API (defaults not yet applied). */
export type RunSpecInput = z.input<typeof RunSpecSchema>;

/**
 * What the schema cannot say, checked (and completed) after validation, for the CLI and the API
 * alike: conflicting load options, the default request count, the base URL's split into URL and
 * endpoint, SLOs the metrics can judge. `flagPaths`: spec paths that came from flags.
 */
export function checkRunSpec(spec: RunSpec, flagPaths: { has(path: string): boolean } = new Set<string>()): void {
  const load = spec.load;
  if (load.concurrency !== null && load.max_concurrency !== null) {
    throw new UserError('--concurrency (closed loop) and --max-concurrency (open-loop cap) cannot be combined; pick one');
  }
  if (load.concurrency !== null && flagPaths.has('load.request_rate')) {
    throw new UserError('--request-rate has no meaning with --concurrency (closed loop sends when a request completes); drop one');
  }
  if (load.num_prompts === null && load.duration_ms === null) load.num_prompts = 1000;
  if (spec.target.base_url !== null) {
    const n = normalizeBaseUrl(spec.target.base_url, spec.target.endpoint);
    spec.target.base_url = n.baseUrl;
    spec.target.endpoint = n.endpoint;
  }
  checkObjectivesUsable(spec.slos, spec.goodput);
}

/** Number of requests and rate of the quickstart run against the built-in simulator (cli/resolve-spec.ts applies them; the capacity gate may lower the rate). */
export const SIM_DEMO_DEFAULTS = { num_prompts: 200, request_rate: 10 } as const;
