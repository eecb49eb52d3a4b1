import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors/user-error.js';
import { autoRates, parseConcurrencyList, parseRateList, stagePromptSalt } from '../../src/sweep/stages.js';

describe('stage lists', () => {
  it('reads rates (inf last) and concurrencies', () => {
    expect(parseRateList('1, 2,4.5,inf').map((s) => (s.kind === 'rate' ? s.rate : 0))).toEqual([1, 2, 4.5, Infinity]);
    expect(parseConcurrencyList('1,4,16').map((s) => (s.kind === 'concurrency' ? s.concurrency : 0))).toEqual([1, 4, 16]);
  });

  it('rejects empty, malformed and non-increasing lists with one line naming the flag', () => {
    expect(() => parseRateList(' , ')).toThrow(new UserError('--request-rates: give at least one rate, e.g. 1,2,4,8,inf'));
    expect(() => parseRateList('1,4,2')).toThrow(/--request-rates: stages must increase, but 2 follows 4/);
    expect(() => parseRateList('1,inf,8')).toThrow(/8 follows inf/);
    expect(() => parseRateList('1,fast')).toThrow(/--request-rates: expected a positive rate/);
    expect(() => parseConcurrencyList('')).toThrow(/--concurrencies: give at least one/);
    expect(() => parseConcurrencyList('4,4')).toThrow(/4 follows 4/);
    expect(() => parseConcurrencyList('1,2.5')).toThrow(/positive integers/);
  });
});

describe('autoRates', () => {
  it('spaces N rates evenly over (baseline, probe], the last at the probe’s throughput', () => {
    // b = 1, t = 9, N = 4: 1 + 8·k/4 = 3, 5, 7, 9.
    expect(autoRates(1, 9, 4)).toEqual([3, 5, 7, 9]);
    expect(autoRates(0.996, 20.837, 8)).toEqual([3.476, 5.956, 8.436, 10.92, 13.4, 15.88, 18.36, 20.84]);
  });

  it('spans 0.5–1.5× the baseline when the probe is no faster', () => {
    expect(autoRates(2, 2, 3)).toEqual([1, 2, 3]);
  });
});

describe('stagePromptSalt: fresh prompts per stage', () => {
  it('each stage its own salt from the sweep salt; shared-prefix workloads and unsalted runs keep theirs', () => {
    const w = { dataset_name: 'random', random_prefix_len: 0, prompt_salt: 'ab12cd34' };
    expect([0, 1, 2].map((i) => stagePromptSalt(w, i))).toEqual(['ab12cd34-0', 'ab12cd34-1', 'ab12cd34-2']);
    expect(stagePromptSalt({ ...w, random_prefix_len: 64 }, 3)).toBe('ab12cd34');
    expect(stagePromptSalt({ ...w, dataset_name: 'prefix' }, 3)).toBe('ab12cd34');
    expect(stagePromptSalt({ ...w, tasks: [{ dataset_name: 'random' }, { dataset_name: 'prefix' }] }, 3)).toBe('ab12cd34');
    expect(stagePromptSalt({ ...w, tasks: [{ dataset_name: 'random' }] }, 3)).toBe('ab12cd34-3');
    expect(stagePromptSalt({ ...w, prompt_salt: null }, 1)).toBeNull();
    expect(stagePromptSalt({ ...w, prompt_salt: '' }, 1)).toBe('');
  });

  it('two stages of one sweep get different words of the same lengths', async () => {
    const { createWorkload } = await import('../../src/workload/index.js');
    const { WorkloadSpecSchema } = await import('../../src/workload/index.js');
    const base = WorkloadSpecSchema.parse({ random_input_len: 64, random_output_len: 8, prompt_salt: 'ab12cd34' });
    const make = async (i: number) => createWorkload({ ...base, prompt_salt: stagePromptSalt(base, i) }, { seed: 1, endpointKind: 'completions', numPrompts: 5, warn: () => {} });
    const [w0, w1] = [await make(0), await make(1)];
    const items = (w: Awaited<ReturnType<typeof make>>) => Array.from({ length: 5 }, () => w.next());
    const [a, b] = [items(w0), items(w1)];
    expect(a.map((x) => x.prompt)).not.toEqual(b.map((x) => x.prompt));
    expect(a.map((x) => x.max_tokens)).toEqual(b.map((x) => x.max_tokens));
  });
});
