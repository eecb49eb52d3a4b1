import { describe, expect, it } from 'vitest';
import { createWorkload, WorkloadSpecSchema } from '../../src/workload/index.js';
import type { WorkItem } from '../../src/workload/index.js';

const FIX = 'test/fixtures/workload';

async function items(spec: Record<string, unknown>, lengthsOnly: boolean, n: number): Promise<WorkItem[]> {
  const w = await createWorkload(WorkloadSpecSchema.parse(spec), { seed: 5, endpointKind: 'completions', lengthsOnly, warn: () => {} });
  return Array.from({ length: n }, () => w.next());
}

const withoutText = (xs: WorkItem[]) => xs.map(({ prompt: _p, messages: _m, ...rest }) => rest);

describe('lengthsOnly workloads (virtual time): no prompt text, every length and id unchanged', () => {
  for (const [name, spec] of [
    ['random with a shared prefix and a system prompt', { dataset_name: 'random', random_prefix_len: 100, system_prompt_len: 20, random_range_ratio: 0.5 }],
    ['prefix groups', { dataset_name: 'prefix', prefix_len: 64, prefix_num_groups: 3 }],
    ['a Mooncake trace', { dataset_name: 'trace', dataset_path: `${FIX}/mooncake-sample.jsonl` }],
  ] as const) {
    it(name, async () => {
      const withText = await items(spec, false, 30);
      const bare = await items(spec, true, 30);
      expect(withText.some((x) => (x.prompt ?? '').length > 0)).toBe(true);
      expect(bare.every((x) => (x.prompt ?? '').trim() === '')).toBe(true);
      expect(withoutText(bare)).toEqual(withoutText(withText));
    });
  }
});
