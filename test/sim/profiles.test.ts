import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors/user-error.js';
import { HARDWARE } from '../../src/sim/engine/hardware.js';
import { MODELS } from '../../src/sim/engine/models.js';
import { hardwareProfile, modelProfile } from '../../src/sim/engine/profiles.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('profiles', () => {
  it('has the required hardware and models, found by id or alias', () => {
    for (const id of ['a100', 'h100', 'h200', 'l40s', 'mi300x']) expect(hardwareProfile(id).id).toBe(id);
    for (const id of ['llama-3.1-8b', 'llama-3.1-70b', 'qwen2.5-7b', 'mixtral-8x7b', 'qwen3-30b-a3b']) expect(modelProfile(id).id).toBe(id);
    expect(hardwareProfile('H100-SXM').id).toBe('h100');
    expect(modelProfile('meta-llama/Llama-3.1-8B-Instruct').id).toBe('llama-3.1-8b');
    expect(HARDWARE.length).toBeGreaterThanOrEqual(5);
    expect(MODELS.some((m) => (m.experts ?? 0) > 1 && m.active_params < m.params)).toBe(true);
  });

  it('names the known ids when a profile is unknown', () => {
    expect(() => hardwareProfile('tpu-v9')).toThrow(UserError);
    expect(() => hardwareProfile('tpu-v9')).toThrow(/h100/);
    expect(() => modelProfile('gpt-9')).toThrow(/llama-3.1-8b/);
  });

  it('loads user profiles from JSON and YAML and names a bad field', () => {
    const dir = tempDir('sim-prof');
    const hw = join(dir, 'gpu.yaml');
    writeFileSync(hw, 'id: my-gpu\npeak_flops: 500e12\nmem_bandwidth: 2.0e12\nmem_bytes: 64e9\nlink_bandwidth: 400e9\n');
    expect(hardwareProfile(hw)).toMatchObject({ id: 'my-gpu', peak_flops: 500e12, mem_bytes: 64e9 });
    const m = join(dir, 'model.json');
    writeFileSync(m, JSON.stringify({ id: 'tiny', layers: 4, hidden: 512, heads: 8, kv_heads: 2, head_dim: 64, params: 1e8 }));
    expect(modelProfile(m)).toMatchObject({ id: 'tiny', active_params: 1e8, weight_bytes_per_param: 2 });
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ id: 'x', layers: 'many' }));
    expect(() => modelProfile(bad)).toThrow(/field layers/);
    expect(() => modelProfile(join(dir, 'missing.yaml'))).toThrow(/cannot read/);
  });
});
