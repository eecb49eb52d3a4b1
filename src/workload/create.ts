/**
 * createWorkload: spec → Workload. Loads the tokenizer and dataset up front, so every user error
 * (bad file, malformed dataset, unknown tokenizer) surfaces before the run starts.
 */
import { UserError } from '../errors/user-error.js';
import { randomWorkload } from './datasets/random.js';
import { resolveEmpirical } from './lengths.js';
import type { SubWorkloadSpec, WorkloadSpec } from './spec.js';
import { createTextMaker } from './synthetic.js';
import { loadTokenizer } from './tokenizers/load.js';
import type { Workload, WorkloadOptions } from './types.js';

export async function createWorkload(spec: WorkloadSpec, opts: WorkloadOptions): Promise<Workload> {
  if (spec.tasks) {
    throw new UserError('workload.tasks: task mixes are not supported yet');
  }
  return createSubWorkload(spec, opts, 'workload');
}

export async function createSubWorkload(spec: SubWorkloadSpec, opts: WorkloadOptions, field: string): Promise<Workload> {
  const resolved: SubWorkloadSpec = { ...spec };
  if (spec.input_len) resolved.input_len = await resolveEmpirical(spec.input_len, `${field}.input_len`);
  if (spec.output_len) resolved.output_len = await resolveEmpirical(spec.output_len, `${field}.output_len`);
  const tokenizer = await loadTokenizer(spec.tokenizer, `${field}.tokenizer`);
  const maker = createTextMaker(tokenizer);
  switch (spec.dataset_name) {
    case 'random':
      return randomWorkload(resolved, opts.seed, maker);
    default:
      throw new UserError(`${field}.dataset_name: ${spec.dataset_name} is not supported yet`);
  }
}
