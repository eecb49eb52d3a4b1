import { describe, expect, it } from 'vitest';
import { comparableSpec, exactSpecHash, loadSettings, specDraws, specHash, workloadSettings } from '../../src/analysis/comparable-spec.js';

const spec = {
  name: 'a',
  target: { base_url: 'http://h:8000', endpoint: '/v1/completions', model: 'm' },
  load: { request_rate: 8, duration_ms: 300_000, num_prompts: null, seed: 1, workers: 2 },
  workload: { dataset_name: 'random', random_input_len: 512, prompt_salt: '0a1b2c3d' },
};
const http = { simulated: false, driver: 'http' };

describe('the comparable projection of a spec', () => {
  it('two runs of one command against a server — fresh salt, another seed — have one spec hash', () => {
    const again = { ...spec, load: { ...spec.load, seed: 2 }, workload: { ...spec.workload, prompt_salt: 'ffee0011' } };
    expect(specHash(again, http)).toBe(specHash(spec, http));
    // The draws are stated, not matched …
    expect(specDraws(again)).toEqual({ seed: 2, prompt_salt: 'ffee0011' });
    expect(comparableSpec(spec, http).workload).toEqual({ dataset_name: 'random', random_input_len: 512 });
    // … except where the same requests must be sent: the distributed check.
    expect(exactSpecHash(again, http)).not.toBe(exactSpecHash(spec, http));
    expect(exactSpecHash({ ...spec }, http)).toBe(exactSpecHash(spec, http));
  });

  it('a setting the user changed changes the hash: rate, duration, the request count, the lengths', () => {
    const h = specHash(spec, http);
    expect(specHash({ ...spec, load: { ...spec.load, request_rate: 9 } }, http)).not.toBe(h);
    expect(specHash({ ...spec, load: { ...spec.load, duration_ms: 60_000 } }, http)).not.toBe(h);
    expect(specHash({ ...spec, load: { ...spec.load, num_prompts: 500 } }, http)).not.toBe(h);
    expect(specHash({ ...spec, workload: { ...spec.workload, random_input_len: 256 } }, http)).not.toBe(h);
  });

  it("result.json's request count is an outcome for a duration-bound run, a setting for a count-bound one", () => {
    const durationBound = { mode: 'open', request_rate: 8, num_prompts: 2420, duration_ms: 300_000, seed: 1 };
    // Without spec.json, or with one that set no count: the produced 2420 is not a setting.
    expect(loadSettings(durationBound, null)).toEqual({ mode: 'open', request_rate: 8, duration_ms: 300_000 });
    expect(loadSettings(durationBound, { num_prompts: null, duration_ms: 300_000 })).toEqual({ mode: 'open', request_rate: 8, duration_ms: 300_000 });
    // Both bounds given (whichever ends first): the count the user gave is a setting.
    expect(loadSettings({ ...durationBound, num_prompts: 500 }, { num_prompts: 500 })).toEqual({ mode: 'open', request_rate: 8, num_prompts: 500, duration_ms: 300_000 });
    // Count-bound: the count is the setting.
    expect(loadSettings({ mode: 'open', request_rate: 8, num_prompts: 300, duration_ms: null, seed: 1 }, null)).toEqual({ mode: 'open', request_rate: 8, num_prompts: 300, duration_ms: null });
    expect(workloadSettings({ dataset_name: 'random', prompt_salt: 'x' })).toEqual({ dataset_name: 'random' });
    expect(workloadSettings(null)).toBeNull();
  });
});
