import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorkloadSpecSchema, createWorkload, loadTokenizer } from '../../src/workload/index.js';
import { parseTimestamp, traceSharedFraction } from '../../src/workload/datasets/trace.js';
import { subdivideIds } from '../../src/workload/datasets/blocks.js';
import { tempDir } from '../helpers/temp-dir.js';

const FIX = 'test/fixtures/workload';

async function load(over: Record<string, unknown>) {
  const warnings: string[] = [];
  const w = await createWorkload(WorkloadSpecSchema.parse({ dataset_name: 'trace', ...over }), { seed: 1, endpointKind: 'completions', warn: (m) => warnings.push(m) });
  return { w, warnings };
}

describe('Mooncake trace', () => {
  it('timed items at the trace timestamps, scaled by time and rate', async () => {
    const { w, warnings } = await load({ dataset_path: `${FIX}/mooncake-sample.jsonl` });
    expect(w.timed!.map((t) => t.at_ms)).toEqual([0, 250, 500, 1200, 2000]);
    expect(w.skipped).toBe(1);
    expect(warnings[0]).toBe(`${FIX}/mooncake-sample.jsonl:5: skipped: timestamp must be a non-negative number (ms)`);
    // time ×2 and rate ×4 → every gap × 0.5
    const { w: s } = await load({ dataset_path: `${FIX}/mooncake-sample.jsonl`, trace_time_scale: 2, trace_rate_scale: 4 });
    expect(s.timed!.map((t) => t.at_ms)).toEqual([0, 125, 250, 600, 1000]);
    expect(s.describe()).toMatchObject({ format: 'mooncake', requests: 5, duration_ms: 1000, mean_rate_rps: 4 });
    expect(s.timed!.map((t) => [t.item.prompt_tokens, t.item.max_tokens])).toEqual([
      [1024, 64],
      [1536, 32],
      [600, 128],
      [2048, 16],
      [512, 256],
    ]);
  });

  it('equal hash ids give identical block text: token-exact prompts sharing the trace prefixes (llama3)', async () => {
    const tok = await loadTokenizer('llama3');
    const { w } = await load({ dataset_path: `${FIX}/mooncake-sample.jsonl`, tokenizer: 'llama3' });
    const items = w.timed!.map((t) => t.item);
    const ids = items.map((i) => tok.encode(i.prompt));
    ids.forEach((x, k) => expect(x.length).toBe(items[k]!.prompt_tokens));
    // Requests 0, 1 and 3 share blocks [0, 1] = 1024 tokens; 1 and 3 also block 2.
    expect(ids[1]!.slice(0, 1024)).toEqual(ids[0]);
    expect(ids[3]!.slice(0, 1536)).toEqual(ids[1]);
    expect(ids[2]!.slice(0, 16)).not.toEqual(ids[0]!.slice(0, 16));
    // Trace ids (512-token blocks) become 16-token KV block ids: id k, sub-block j ↦ 32k + j.
    expect(items[1]!.prefix_block_tokens).toBe(16);
    expect(items[1]!.prefix_hash_ids).toEqual(Array.from({ length: 96 }, (_, j) => j));
    // 600 tokens on ids [3, 4]: 32 sub-blocks of id 3, 5 full of id 4, then an 8-token tail (fresh id).
    const third = items[2]!.prefix_hash_ids!;
    expect(third).toHaveLength(38);
    expect(third.slice(0, 37)).toEqual([...Array.from({ length: 32 }, (_, j) => 96 + j), 128, 129, 130, 131, 132]);
    expect(third[37]).toBeGreaterThanOrEqual(7 * 32); // above every subdivided id (max trace id 6)
    // Shared: req1 1024 + req3 1536 of 1024+1536+600+2048+512 = 5720 tokens.
    expect(w.describe()['expected_shared_token_fraction']).toBeCloseTo(2560 / 5720, 10);
  });

  it('next() cycles through the trace in time order for count-driven runs', async () => {
    const { w } = await load({ dataset_path: `${FIX}/mooncake-sample.jsonl` });
    const lens = Array.from({ length: 7 }, () => w.next().prompt_tokens);
    expect(lens).toEqual([1024, 1536, 600, 2048, 512, 1024, 1536]);
  });
});

describe('Azure LLM inference trace', () => {
  it('TIMESTAMP date-times → ms offsets; ContextTokens / GeneratedTokens → lengths', async () => {
    const { w, warnings } = await load({ dataset_path: `${FIX}/azure-sample.csv` });
    const at = w.timed!.map((t) => t.at_ms);
    // 18:15:46.6805900 is t0; 18:15:50.9951690 → 4314.579 ms; 18:15:51.187 → 4506.41 ms
    expect(at[0]).toBe(0);
    expect(at[1]).toBeCloseTo(4314.579, 3);
    expect(at[2]).toBeCloseTo(4506.41, 3);
    expect(at[3]).toBeCloseTo(8319.41, 3);
    expect(at[4]).toBeCloseTo(15000, 3);
    expect(w.timed!.map((t) => [t.item.prompt_tokens, t.item.max_tokens])).toEqual([
      [374, 44],
      [396, 109],
      [879, 55],
      [4096, 1],
      [64, 200],
    ]);
    expect(w.skipped).toBe(1);
    expect(warnings[0]).toMatch(/azure-sample.csv:5: skipped: TIMESTAMP not a date-time/);
    const { w: fast } = await load({ dataset_path: `${FIX}/azure-sample.csv`, trace_rate_scale: 10 });
    expect(fast.timed![4]!.at_ms).toBeCloseTo(1500, 6);
  });

  it('unsorted rows are replayed in time order, with one warning; a missing column is one error', async () => {
    const dir = tempDir('tr');
    writeFileSync(join(dir, 'u.csv'), 'TIMESTAMP,ContextTokens,GeneratedTokens\n12.5,10,1\n10,20,2\n');
    const { w, warnings } = await load({ dataset_path: join(dir, 'u.csv') });
    expect(warnings).toEqual([`${join(dir, 'u.csv')}:3: timestamps are not in order (this row is earlier than line 2); the trace is replayed sorted by time`]);
    expect(w.timed!.map((t) => [t.at_ms, t.item.prompt_tokens])).toEqual([
      [0, 20],
      [2500, 10],
    ]);
    writeFileSync(join(dir, 'bad.csv'), 'TIMESTAMP,Tokens\n1,2\n');
    await expect(load({ dataset_path: join(dir, 'bad.csv') })).rejects.toThrow(/bad.csv:1: .*needs a ContextTokens column/);
    writeFileSync(join(dir, 'empty.jsonl'), '{"timestamp": -1}\n');
    await expect(load({ dataset_path: join(dir, 'empty.jsonl') })).rejects.toThrow(/no usable request in the mooncake trace \(1 malformed\)/);
  });
});

describe('trace helpers', () => {
  it('subdivideIds keeps 512-token ids when the KV block does not divide them', () => {
    let f = 1000;
    expect(subdivideIds([7, 8], 700, 512, 24, () => f++)).toEqual({ ids: [7, 8], block_tokens: 512 });
    // 40 tokens on id 2 with B = 32, b = 16: sub-blocks 4, 5, then 8 tokens beyond the ids → fresh.
    expect(subdivideIds([2], 40, 32, 16, () => f++)).toEqual({ ids: [4, 5, 1000], block_tokens: 16 });
  });
  it('parseTimestamp', () => {
    expect(parseTimestamp('2024-05-10 00:00:01.5')).toBe(Date.UTC(2024, 4, 10, 0, 0, 1) + 500);
    expect(parseTimestamp('2024-05-10T00:00:01Z')).toBe(Date.UTC(2024, 4, 10, 0, 0, 1));
    expect(parseTimestamp('3.25')).toBe(3250);
    expect(parseTimestamp('yesterday')).toBeNull();
  });
  it('shared fraction counts only leading blocks seen before', () => {
    const row = (ids: number[], input: number) => ({ t_ms: 0, input, output: 1, hash_ids: ids, line: 1 });
    // second: block 0 seen (10), block 9 new → stops prefix; block 1 not counted even though seen
    expect(traceSharedFraction([row([0, 1], 20), row([0, 9, 1], 30)], 10)).toBeCloseTo(10 / 50);
  });
});

describe('timed workloads keep the Workload contract', () => {
  it('next() returns the timed items in timeline order, for one trace and for a mix of traces', async () => {
    const { w } = await load({ dataset_path: `${FIX}/mooncake-sample.jsonl` });
    expect(w.timed!.map(() => w.next())).toEqual(w.timed!.map((t) => t.item));
    const mix = await createWorkload(
      WorkloadSpecSchema.parse({
        tasks: [
          { name: 'a', weight: 1, dataset_name: 'trace', dataset_path: `${FIX}/mooncake-sample.jsonl` },
          { name: 'b', weight: 5, dataset_name: 'trace', dataset_path: `${FIX}/azure-sample.csv` },
        ],
      }),
      { seed: 1, endpointKind: 'completions', warn: () => {} },
    );
    const timeline = mix.timed!;
    expect(new Set(timeline.map((t) => t.item.task))).toEqual(new Set(['a', 'b']));
    expect(timeline.map(() => mix.next())).toEqual(timeline.map((t) => t.item));
  });
});
