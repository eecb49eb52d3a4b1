import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { simEngine, simProfileEngineFields } from '../../src/session/builtin-sim.js';
import { SimSpecSchema } from '../../src/config/schema.js';
import { ENGINE_PRESET_NAMES, PROFILE_ENGINE_FIELDS } from '../../src/config/sim-profile.js';
import { COST_PARAMS } from '../../src/sim/engine/config.js';
import { ENGINE_PRESETS, V0_STEP_OVERHEAD_MS } from '../../src/sim/index.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('a profile that records its engine preset', () => {
  const dir = tempDir('profile-preset');
  const path = join(dir, 'v0.yaml');
  writeFileSync(path, 'kind: infermeter-sim-profile\nversion: 1\nhardware: h100\nmodel: llama-3.1-8b\nengine_preset: vllm-v0\nnum_scheduler_steps: 8\nengine:\n  memory_efficiency: 0.7\n');

  it('the profile format knows the engine presets the simulator has', () => {
    expect([...ENGINE_PRESET_NAMES]).toEqual([...ENGINE_PRESETS]);
  });

  it('a spec with the profile gets its preset and steps unless it sets them; the engine is the preset’s under the profile’s values', () => {
    const sim = SimSpecSchema.parse({ profile: path });
    expect(sim).toMatchObject({ engine_preset: 'vllm-v0', num_scheduler_steps: 8 });
    expect(simEngine(sim, 'llama-3.1-8b')).toMatchObject({ prefill_first: true, enable_chunked_prefill: false, step_overhead_ms: V0_STEP_OVERHEAD_MS, memory_efficiency: 0.7, num_scheduler_steps: 8 });
    expect(SimSpecSchema.parse({ profile: path, engine_preset: 'vllm-v1', num_scheduler_steps: null })).toMatchObject({ engine_preset: 'vllm-v1', num_scheduler_steps: null });
    expect(SimSpecSchema.parse({})).toMatchObject({ engine_preset: 'vllm-v1', num_scheduler_steps: null });
  });

  it('a profile may set every cost parameter of the engine, the multi-step overhead among them', () => {
    expect([...PROFILE_ENGINE_FIELDS]).toEqual([...COST_PARAMS]);
    const p = join(dir, 'ms.yaml');
    writeFileSync(p, 'kind: infermeter-sim-profile\nversion: 1\nhardware: h100\nmodel: llama-3.1-8b\nengine_preset: vllm-v0\nengine:\n  multi_step_overhead_ms: 1.25\n');
    expect(simEngine(SimSpecSchema.parse({ profile: p }), 'llama-3.1-8b')).toMatchObject({ multi_step_overhead_ms: 1.25, step_overhead_ms: V0_STEP_OVERHEAD_MS });
  });

  it('plan --sim-profile (no engine flags) runs the profile’s preset too', () => {
    expect(simProfileEngineFields(path, 'h100', 'llama-3.1-8b')).toEqual(simEngine(SimSpecSchema.parse({ profile: path }), 'llama-3.1-8b'));
  });
});
