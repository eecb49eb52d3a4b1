import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors/user-error.js';
import {
  WorkloadSpecSchema,
  createWorkload,
  estimateCount,
  registerWorkloadOptions,
  workloadSpecFromFlags,
} from '../../src/workload/index.js';

const spec = (over: Record<string, unknown> = {}) => WorkloadSpecSchema.parse(over);

describe('random dataset (estimate tokenizer)', () => {
  it('defaults to vLLM lengths: 1024 in, 128 out', async () => {
    const w = await createWorkload(spec(), { seed: 1, endpointKind: 'completions' });
    const item = w.next();
    expect(item.prompt_tokens).toBe(1024);
    expect(item.max_tokens).toBe(128);
    expect(estimateCount(item.prompt)).toBe(1024);
    expect(item.prompt.split(' ')).toHaveLength(1024);
    expect(item.messages).toBeNull();
    expect(w.skipped).toBe(0);
  });

  it('is deterministic for a seed and distinct per request', async () => {
    const a = await createWorkload(spec({ random_input_len: 64 }), { seed: 7, endpointKind: 'chat' });
    const b = await createWorkload(spec({ random_input_len: 64 }), { seed: 7, endpointKind: 'chat' });
    const c = await createWorkload(spec({ random_input_len: 64 }), { seed: 8, endpointKind: 'chat' });
    const xs = Array.from({ length: 50 }, () => a.next().prompt);
    const ys = Array.from({ length: 50 }, () => b.next().prompt);
    expect(xs).toEqual(ys);
    expect(new Set(xs).size).toBe(50);
    expect(c.next().prompt).not.toBe(xs[0]);
    // No two prompts share even their first 4 words (a 16-token cache block would be unlikely to match).
    expect(new Set(xs.map((p) => p.split(' ').slice(0, 4).join(' '))).size).toBe(50);
  });

  it('range ratio: lengths uniform on [X(1-r), X(1+r)] with the right mean', async () => {
    const w = await createWorkload(spec({ random_input_len: 100, random_output_len: 50, random_range_ratio: 0.5 }), {
      seed: 3,
      endpointKind: 'completions',
    });
    const items = Array.from({ length: 2000 }, () => w.next());
    const ins = items.map((i) => i.prompt_tokens as number);
    const outs = items.map((i) => i.max_tokens as number);
    expect(Math.min(...ins)).toBe(50);
    expect(Math.max(...ins)).toBe(150);
    expect(Math.min(...outs)).toBe(25);
    expect(Math.max(...outs)).toBe(75);
    const mean = ins.reduce((s, x) => s + x, 0) / ins.length;
    expect(mean).toBeGreaterThan(98);
    expect(mean).toBeLessThan(102);
    for (const it of items.slice(0, 20)) expect(estimateCount(it.prompt)).toBe(it.prompt_tokens);
  });

  it('prefix: every prompt starts with the same prefix_len tokens, then differs', async () => {
    const w = await createWorkload(spec({ random_input_len: 30, random_prefix_len: 20 }), { seed: 5, endpointKind: 'completions' });
    const items = Array.from({ length: 10 }, () => w.next());
    const prefix = items[0]!.prompt.split(' ').slice(0, 20).join(' ');
    for (const it of items) {
      expect(it.prompt_tokens).toBe(50);
      expect(it.prompt.split(' ')).toHaveLength(50);
      expect(it.prompt.startsWith(`${prefix} `)).toBe(true);
    }
    expect(new Set(items.map((i) => i.prompt.split(' ').slice(20).join(' '))).size).toBe(10);
    expect(w.describe()['expected_shared_token_fraction']).toBeCloseTo(20 / 50);
  });

  it('prefix blocks: the shared prefix has the same block ids in every request, the rest fresh ones', async () => {
    const w = await createWorkload(spec({ random_input_len: 30, random_prefix_len: 40, prefix_block_size: 16 }), { seed: 5, endpointKind: 'chat' });
    const items = Array.from({ length: 3 }, () => w.next());
    for (const it of items) {
      expect(it.prefix_block_tokens).toBe(16);
      expect(it.prefix_hash_ids!.slice(0, 2)).toEqual([0, 1]); // ⌊40/16⌋ shared blocks
      expect(it.prefix_hash_ids).toHaveLength(5); // ⌈70/16⌉
    }
    const rest = items.flatMap((i) => i.prefix_hash_ids!.slice(2));
    expect(new Set(rest).size).toBe(rest.length);
    const none = await createWorkload(spec({ random_input_len: 30 }), { seed: 5, endpointKind: 'chat' });
    expect(none.next().prefix_hash_ids).toBeUndefined();
  });
});

describe('workload flags', () => {
  it('registers vLLM-named flags and maps them to the spec', () => {
    const cmd = registerWorkloadOptions(new Command().exitOverride());
    cmd.parse(
      ['--dataset-name', 'random', '--random-input-len', '256', '--random-output-len', '32', '--random-range-ratio', '0.25', '--random-prefix-len', '8', '--tokenizer', 'llama3', '--input-len', 'normal:mean=100,std=10,min=1,max=200'],
      { from: 'user' },
    );
    const partial = workloadSpecFromFlags(cmd.opts());
    expect(partial).toEqual({
      dataset_name: 'random',
      random_input_len: 256,
      random_output_len: 32,
      random_range_ratio: 0.25,
      random_prefix_len: 8,
      tokenizer: 'llama3',
      input_len: { kind: 'normal', mean: 100, std: 10, min: 1, max: 200 },
    });
    expect(WorkloadSpecSchema.parse(partial).random_input_len).toBe(256);
  });

  it('flags not given leave the spec alone', () => {
    const cmd = registerWorkloadOptions(new Command());
    cmd.parse([], { from: 'user' });
    expect(workloadSpecFromFlags(cmd.opts())).toEqual({});
  });

  it('bad values name the flag', () => {
    expect(() => workloadSpecFromFlags({ randomInputLen: 'abc' })).toThrow(UserError);
    expect(() => workloadSpecFromFlags({ randomInputLen: 'abc' })).toThrow(/--random-input-len/);
    expect(() => workloadSpecFromFlags({ inputLen: 'gauss:1' })).toThrow(/--input-len: unknown distribution/);
  });
});
