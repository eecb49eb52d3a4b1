import { describe, expect, it } from 'vitest';
import { WorkloadSpecSchema } from '../../src/workload/index.js';

describe('workload spec', () => {
  it("accepts vLLM's dataset name prefix_repetition in spec files, as the flag does", () => {
    expect(WorkloadSpecSchema.parse({ dataset_name: 'prefix_repetition' }).dataset_name).toBe('prefix');
    expect(() => WorkloadSpecSchema.parse({ dataset_name: 'prefix_repeat' })).toThrow();
  });
});
