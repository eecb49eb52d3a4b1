/**
 * One contract, every workload kind: deterministic for a seed, well-formed items, a describe()
 * that survives JSON, and a skipped count.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LengthDistSchema, WorkloadSpecSchema, createRng, createWorkload, parseLengthDist } from '../../src/workload/index.js';
import type { WorkItem } from '../../src/workload/index.js';
import { lengthSampler } from '../../src/workload/lengths.js';
import { parseCsv } from '../../src/workload/datasets/csv.js';

const FIX = 'test/fixtures/workload';
const KINDS: Record<string, Record<string, unknown>> = {
  random: { random_input_len: 40, random_range_ratio: 0.5, random_prefix_len: 8 },
  'random sessions': { session_turns: { kind: 'uniform', min: 1, max: 3 }, random_input_len: 10, random_output_len: 5 },
  prefix: { dataset_name: 'prefix', prefix_num_groups: 3, prefix_len: 20, random_input_len: 10 },
  sharegpt: { dataset_name: 'sharegpt', dataset_path: `${FIX}/sharegpt-small.json` },
  jsonl: { dataset_name: 'jsonl', dataset_path: `${FIX}/chat.jsonl`, sampling: 'with-replacement' },
  'jsonl sessions': { dataset_name: 'jsonl', dataset_path: `${FIX}/multiturn.jsonl`, session_turns: { kind: 'fixed', value: 9 } },
  hf: { dataset_name: 'hf', dataset_path: `${FIX}/hf-local` },
  mooncake: { dataset_name: 'trace', dataset_path: `${FIX}/mooncake-sample.jsonl` },
  azure: { dataset_name: 'trace', dataset_path: `${FIX}/azure-sample.csv` },
  mix: { tasks: [{ name: 'a', weight: 1, random_input_len: 5 }, { name: 'b', weight: 2, dataset_name: 'jsonl', dataset_path: `${FIX}/chat.jsonl` }] },
};

const build = (over: Record<string, unknown>, seed: number, kind: 'chat' | 'completions' = 'chat') =>
  createWorkload(WorkloadSpecSchema.parse(over), { seed, endpointKind: kind, warn: () => {} });

describe.each(Object.entries(KINDS))('workload contract: %s', (_name, over) => {
  it('is deterministic for a seed and yields well-formed items', async () => {
    for (const kind of ['chat', 'completions'] as const) {
      const a = await build(over, 42, kind);
      const b = await build(over, 42, kind);
      const xs: WorkItem[] = Array.from({ length: 25 }, () => a.next());
      expect(Array.from({ length: 25 }, () => b.next())).toEqual(xs);
      for (const it of xs) {
        expect(typeof it.prompt).toBe('string');
        expect(it.prompt.length).toBeGreaterThan(0);
        if (it.prompt_tokens !== null) expect(Number.isInteger(it.prompt_tokens) && it.prompt_tokens > 0).toBe(true);
        if (it.max_tokens !== null) expect(Number.isInteger(it.max_tokens) && it.max_tokens >= 1).toBe(true);
        if (it.messages) {
          expect(it.messages.at(-1)!.role).toBe('user');
          expect(it.messages.at(-1)!.content).toBe(it.prompt);
        }
        if (kind === 'completions' && it.session !== null) expect(it.messages).toBeNull();
        expect((it.session === null) === (it.turn === null)).toBe(true);
      }
      expect(a.skipped).toBeGreaterThanOrEqual(0);
      const d = a.describe();
      expect(JSON.parse(JSON.stringify(d))).toEqual(d);
      expect(typeof a.countTokens?.('hello world')).toBe('number');
    }
  });
});

describe('properties', () => {
  const dist = fc.oneof(
    fc.record({ kind: fc.constant('fixed' as const), value: fc.integer({ min: 0, max: 5000 }) }),
    fc.integer({ min: 0, max: 5000 }).chain((a) => fc.integer({ min: a, max: a + 5000 }).map((b) => ({ kind: 'uniform' as const, min: a, max: b }))),
    fc.record({
      kind: fc.constantFrom('normal' as const, 'lognormal' as const),
      mean: fc.integer({ min: 1, max: 5000 }),
      std: fc.integer({ min: 0, max: 3000 }),
      min: fc.integer({ min: 0, max: 100 }),
      max: fc.integer({ min: 100, max: 9000 }),
    }),
  );

  it('every draw is an integer within the distribution bounds', () => {
    fc.assert(
      fc.property(dist, fc.integer(), (d, seed) => {
        const s = lengthSampler(LengthDistSchema.parse(d), createRng(seed));
        for (let i = 0; i < 50; i++) {
          const x = s();
          if (!Number.isInteger(x) || x < 0) return false;
          if (d.kind === 'fixed' && x !== d.value) return false;
          if (d.kind === 'uniform' && (x < d.min || x > d.max)) return false;
          if ((d.kind === 'normal' || d.kind === 'lognormal') && (x < d.min || x > d.max)) return false;
        }
        return true;
      }),
    );
  });

  it('the flag syntax round-trips every distribution', () => {
    fc.assert(
      fc.property(dist, (d) => {
        const text =
          d.kind === 'fixed' ? `${d.value}` : d.kind === 'uniform' ? `uniform:${d.min}-${d.max}` : `${d.kind}:mean=${d.mean},std=${d.std},min=${d.min},max=${d.max}`;
        expect(parseLengthDist(text)).toEqual(d);
      }),
    );
  });

  it('CSV: what a writer quotes, the reader reads back', () => {
    const cell = fc.string({ unit: fc.constantFrom('a', 'b', ',', '"', '\n', ' ', 'é') });
    fc.assert(
      fc.property(fc.array(fc.array(cell, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 5 }), (rows) => {
        const quote = (c: string) => `"${c.replace(/"/g, '""')}"`;
        const text = rows.map((r) => r.map(quote).join(',')).join('\r\n');
        expect(parseCsv(text).map((r) => r.cells)).toEqual(rows);
      }),
    );
  });
});
