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
import type { Tokenizer } from './tokenizer.js';
import { Issues, defaultWarn, entriesWorkload } from './datasets/entries.js';
import type { Entry } from './datasets/entries.js';
import { readShareGpt } from './datasets/sharegpt.js';
import { readJsonl } from './datasets/jsonl.js';
import { readHf } from './datasets/hf.js';
import { prefixWorkload } from './datasets/prefix.js';
import { traceWorkload } from './datasets/trace.js';

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
    case 'prefix':
      return prefixWorkload(resolved, opts.seed, maker, opts.numPrompts);
    case 'trace':
      return traceWorkload(resolved, opts.seed, maker, opts.warn ?? defaultWarn);
    case 'sharegpt':
    case 'jsonl':
    case 'hf':
      return fileDataset(resolved, opts, tokenizer, field);
  }
}

async function fileDataset(spec: SubWorkloadSpec, opts: WorkloadOptions, tok: Tokenizer, field: string): Promise<Workload> {
  const path = spec.dataset_path;
  if (path === null) throw new UserError(`${field}.dataset_path: required for --dataset-name ${spec.dataset_name}`);
  const warn = opts.warn ?? defaultWarn;
  let entries: Entry[];
  let issues: Issues;
  let source = path;
  if (spec.dataset_name === 'hf') {
    const r = await readHf(spec, tok, warn);
    entries = r.entries;
    issues = r.issues;
    source = r.source;
  } else {
    issues = new Issues(path, warn);
    entries = spec.dataset_name === 'sharegpt' ? await readShareGpt(path, tok, issues) : await readJsonl(path, tok, issues);
  }
  return entriesWorkload(entries, spec, opts.seed, { dataset: spec.dataset_name, path: source, tokenizer: tok, issues, parsed: entries.length });
}
