import { describe, expect, it } from 'vitest';
import { WorkloadSpecSchema, createWorkload, loadTokenizer } from '../../src/workload/index.js';
import type { WorkItem } from '../../src/workload/index.js';
import { expectedSharedFraction } from '../../src/workload/datasets/prefix.js';

/**
 * An ideal prefix cache (no eviction, token granularity): a request reuses the longest token
 * prefix it shares with any earlier request. Returns reused tokens / all prompt tokens.
 */
function measuredSharedFraction(prompts: number[][]): number {
  // A trie of token ids gives the longest common prefix with any earlier prompt.
  type Node = Map<number, Node>;
  const root: Node = new Map();
  let reused = 0;
  let total = 0;
  for (const ids of prompts) {
    total += ids.length;
    let node: Node | undefined = root;
    let depth = 0;
    while (node && depth < ids.length && node.has(ids[depth]!)) node = node.get(ids[depth++]!);
    reused += depth;
    let cur = root;
    for (const id of ids) {
      let nxt = cur.get(id);
      if (!nxt) cur.set(id, (nxt = new Map()));
      cur = nxt;
    }
  }
  return reused / total;
}

async function prompts(over: Record<string, unknown>, n: number, seed = 1) {
  const spec = WorkloadSpecSchema.parse({ dataset_name: 'prefix', ...over });
  const w = await createWorkload(spec, { seed, endpointKind: 'completions', numPrompts: n });
  return { w, items: Array.from({ length: n }, () => w.next()) };
}

describe('prefix groups', () => {
  it.each(['random', 'round-robin', 'repeat'] as const)(
    '%s: the measured shared-token fraction matches describe() (llama3 tokens)',
    async (mode) => {
      const tok = await loadTokenizer('llama3');
      const n = 400;
      const { w, items } = await prompts({ tokenizer: 'llama3', prefix_num_groups: 10, prefix_len: 96, random_input_len: 32, prefix_mode: mode, prefix_repeat: 5 }, n, 4);
      const ids = items.map((i) => tok.encode(i.prompt));
      for (let k = 0; k < items.length; k++) expect(ids[k]!.length).toBe(items[k]!.prompt_tokens);
      const d = w.describe();
      expect(d['expected_shared_token_fraction']).toBeCloseTo(96 / 128, 10);
      const stated = d['expected_shared_token_fraction_run'] as number;
      const measured = measuredSharedFraction(ids);
      // Random suffixes may coincide in their first word with an earlier suffix of the
      // same group (≈1/|vocab| per pair), adding a token now and then: allow 0.5 points.
      expect(Math.abs(measured - stated)).toBeLessThan(0.005);
      expect(measured).toBeGreaterThanOrEqual(stated - 1e-9);
    },
  );

  it('groups: G distinct prefixes of exactly P tokens; suffixes distinct; repeat mode runs R in a row', async () => {
    const { items } = await prompts({ prefix_num_groups: 3, prefix_len: 20, random_input_len: 10, prefix_mode: 'repeat', prefix_repeat: 4 }, 24);
    const heads = items.map((i) => i.prompt.split(' ').slice(0, 20).join(' '));
    expect(new Set(heads).size).toBe(3);
    // 0000 1111 2222 0000 …
    const order = heads.map((h) => [...new Set(heads)].indexOf(h));
    expect(order.slice(0, 12)).toEqual([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
    expect(order.slice(12)).toEqual(order.slice(0, 12));
    expect(new Set(items.map((i) => i.prompt.split(' ').slice(20).join(' '))).size).toBe(24);
    expect(items.every((i: WorkItem) => i.prompt_tokens === 30 && i.prompt.split(' ').length === 30)).toBe(true);
  });

  it('prefix_hash_ids: shared full blocks carry the group ids, the rest are fresh', async () => {
    const { items } = await prompts({ prefix_num_groups: 2, prefix_len: 40, random_input_len: 30, prefix_mode: 'round-robin', prefix_block_size: 16 }, 4);
    // 70 tokens → 5 blocks; ⌊40/16⌋ = 2 shared blocks per group.
    expect(items.map((i) => i.prefix_hash_ids!.slice(0, 2))).toEqual([[0, 1], [2, 3], [0, 1], [2, 3]]);
    const rest = items.flatMap((i) => i.prefix_hash_ids!.slice(2));
    expect(rest).toHaveLength(12);
    expect(new Set(rest).size).toBe(12);
    expect(Math.min(...rest)).toBe(4);
  });

  it('expected fraction formulas', () => {
    // random: D(n) = G(1 − (1 − 1/G)ⁿ); G = 2, n = 2 → D = 1.5; f = (0.5/2) · 0.5.
    expect(expectedSharedFraction(100, 100, 2, 'random', 1, 2)).toBeCloseTo(0.125);
    expect(expectedSharedFraction(100, 100, 4, 'round-robin', 1, 8)).toBeCloseTo(0.25);
    expect(expectedSharedFraction(100, 100, 4, 'repeat', 3, 9)).toBeCloseTo((6 / 9) * 0.5);
    expect(expectedSharedFraction(100, 300, 4, 'random', 1)).toBeCloseTo(0.25);
  });
});
