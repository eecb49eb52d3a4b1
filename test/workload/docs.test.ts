import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { DATASET_NAMES, WorkloadSpecSchema, registerWorkloadOptions } from '../../src/workload/index.js';
import { WORKLOAD_FLAGS } from '../../src/workload/flags.js';

const doc = readFileSync('docs/workloads.md', 'utf8');

describe('docs/workloads.md', () => {
  it('documents every spec field, flag and dataset name', () => {
    const fields = Object.keys(WorkloadSpecSchema.shape);
    expect(fields.filter((f) => !doc.includes(`\`${f}\``))).toEqual([]);
    const flags = WORKLOAD_FLAGS.map(([f]) => f.split(' ')[0]!);
    expect(flags.filter((f) => !doc.includes(`\`${f}`))).toEqual([]);
    expect(DATASET_NAMES.filter((n) => !doc.includes(`\`${n}\``))).toEqual([]);
  });

  it('every registered flag maps back to a spec field', () => {
    const cmd = registerWorkloadOptions(new Command());
    expect(cmd.options).toHaveLength(WORKLOAD_FLAGS.length);
    const fields = new Set(Object.keys(WorkloadSpecSchema.shape));
    expect(WORKLOAD_FLAGS.filter(([, field]) => !fields.has(field))).toEqual([]);
  });
});
