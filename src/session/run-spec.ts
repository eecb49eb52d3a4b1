/** The complete run spec schema: the spec module's sections plus the workload's. */
import type { z } from 'zod';
import { UserError } from '../errors/user-error.js';
import { normalizeBaseUrl } from '../config/base-url.js';
import { checkObjectivesUsable } from '../config/slo-check.js';
import { buildRunSpecSchema } from '../config/schema.js';
import { isPluginPath, resolveEndpointKind } from '../client/endpoints/registry.js';
import type { EndpointKind } from '../client/endpoints/endpoint-kind.js';
import { WorkloadSpecSchema } from '../workload/index.js';
import { SloListSchema } from './spec-parts.js';

export { SloListSchema, specInputUnit } from './spec-parts.js';

/** The schema's --endpoint default, replaced by the kind's own path when only --endpoint-type is given. */
const DEFAULT_ENDPOINT = '/v1/completions';

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
  checkEndpointKind(spec, flagPaths);
  checkObjectivesUsable(spec.slos, spec.goodput);
}

/** Per-request figures of generated tokens over time: undefined for a kind that generates none. */
const TOKEN_TIMING_METRICS = new Set(['ttft_ms', 'ttft_from_schedule_ms', 'tpot_ms', 'itl_ms', 'ttfat_ms', 'reasoning_ms', 'answer_tpot_ms']);

/**
 * The endpoint kind (--endpoint-type) against the rest of the spec: its path when --endpoint is
 * not given, a batch size only where the kind takes batches, no SLO on figures it has not.
 * @throws UserError in one line naming the flag
 */
function checkEndpointKind(spec: RunSpec, flagPaths: { has(path: string): boolean }): void {
  const t = spec.target;
  // A plugin's kind is known once its module is loaded (prepareRun, prepare-run.ts), which checks it then.
  if (isPluginPath(t.endpoint_type)) return;
  checkEndpointKindFits(spec, resolveEndpointKind(t.endpoint_type, t.endpoint), flagPaths);
}


/** checkEndpointKind for a known kind (a plugin's, once loaded). */
export function checkEndpointKindFits(spec: RunSpec, kind: EndpointKind, flagPaths: { has(path: string): boolean } = new Set<string>()): void {
  const t = spec.target;
  if (t.endpoint_type !== undefined && !flagPaths.has('target.endpoint') && t.endpoint === DEFAULT_ENDPOINT) t.endpoint = kind.path;
  const batch = spec.load.batch_size ?? 1;
  if (batch > 1 && kind.generates) throw new UserError(`--batch-size ${batch}: only embeddings, rerank and score requests carry a batch of inputs; the ${kind.name} endpoint takes one prompt per request`);
  if (kind.generates) return;
  const noTokens = `${kind.name} requests generate no tokens, so they have no TTFT, TPOT or ITL; bound e2el (the request's latency) instead`;
  const o = spec.slos.find((x) => TOKEN_TIMING_METRICS.has(x.metric));
  if (o) throw new UserError(`--slo "${o.text}": ${noTokens}`);
  const g = spec.goodput.find((x) => TOKEN_TIMING_METRICS.has(x.metric));
  if (g) throw new UserError(`--goodput ${g.metric.replace(/_ms$/, '')}:${g.threshold_ms}: ${noTokens}`);
}

/** Number of requests and rate of the quickstart run against the built-in simulator (cli/resolve-spec.ts applies them; the capacity gate may lower the rate). */
export const SIM_DEMO_DEFAULTS = { num_prompts: 200, request_rate: 10 } as const;
