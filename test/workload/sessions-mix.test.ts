import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors/user-error.js';
import { WorkloadSpecSchema, createWorkload, estimateCount, loadTokenizer } from '../../src/workload/index.js';
import type { WorkItem } from '../../src/workload/index.js';

const FIX = 'test/fixtures/workload';
const mk = (over: Record<string, unknown>, kind: 'chat' | 'completions' = 'chat', seed = 1) =>
  createWorkload(WorkloadSpecSchema.parse(over), { seed, endpointKind: kind, warn: () => {} });

describe('multi-turn sessions (synthetic)', () => {
  it('each turn carries the previous turns; think time between turns; token-exact history (qwen3)', async () => {
    const tok = await loadTokenizer('qwen3');
    const w = await mk({
      tokenizer: 'qwen3',
      session_turns: { kind: 'uniform', min: 2, max: 5 },
      think_time_ms: { kind: 'uniform', min: 1000, max: 3000 },
      input_len: { kind: 'uniform', min: 10, max: 40 },
      output_len: { kind: 'fixed', value: 16 },
      system_prompt_len: 12,
    });
    const thinks: number[] = [];
    for (let s = 0; s < 30; s++) {
      const session = w.nextSession!();
      expect(session.turns.length).toBeGreaterThanOrEqual(2);
      expect(session.turns.length).toBeLessThanOrEqual(5);
      session.turns.forEach((t, k) => {
        expect(t).toMatchObject({ session: session.id, turn: k, max_tokens: 16 });
        const m = t.messages!;
        // system + k (user, assistant) pairs + the new user message
        expect(m).toHaveLength(1 + 2 * k + 1);
        expect(m[0]!.role).toBe('system');
        expect(m.at(-1)).toEqual({ role: 'user', content: t.prompt });
        if (k > 0) {
          expect(m.slice(0, -2)).toEqual(session.turns[k - 1]!.messages);
          expect(m.at(-2)!.role).toBe('assistant');
          expect(tok.count(m.at(-2)!.content)).toBe(16);
          thinks.push(t.think_time_ms!);
        } else expect(t.think_time_ms).toBe(0);
        expect(m.reduce((n, x) => n + tok.count(x.content), 0)).toBe(t.prompt_tokens);
      });
    }
    expect(Math.min(...thinks)).toBeGreaterThanOrEqual(1000);
    expect(Math.max(...thinks)).toBeLessThanOrEqual(3000);
    expect(new Set(thinks).size).toBeGreaterThan(10);
    expect(w.describe()).toMatchObject({ sessions: true, mean_turns: 3.5 });
  });

  it('prefix_hash_ids: a turn reuses the blocks that were full in the previous turn; the system prompt is shared', async () => {
    const w = await mk({
      session_turns: { kind: 'fixed', value: 3 },
      system_prompt_len: 40,
      random_input_len: 20,
      random_output_len: 10,
      prefix_block_size: 16,
    });
    const [a, b] = [w.nextSession!(), w.nextSession!()];
    const ids = a.turns.map((t) => t.prefix_hash_ids!);
    // turn 0: 40 + 20 = 60 tokens → 4 blocks, ⌊60/16⌋ = 3 full; turn 1: 60 + 10 + 20 = 90 → 6 blocks.
    expect(a.turns.map((t) => t.prompt_tokens)).toEqual([60, 90, 120]);
    expect(ids.map((x) => x.length)).toEqual([4, 6, 8]);
    expect(ids[0]!.slice(0, 2)).toEqual([0, 1]); // ⌊40/16⌋ system blocks, shared by every session
    expect(ids[1]!.slice(0, 3)).toEqual(ids[0]!.slice(0, 3));
    expect(ids[1]![3]).not.toBe(ids[0]![3]); // was partial at turn 0: its content changed
    expect(ids[2]!.slice(0, 5)).toEqual(ids[1]!.slice(0, 5)); // ⌊90/16⌋ = 5
    const other = b.turns[0]!.prefix_hash_ids!;
    expect(other.slice(0, 2)).toEqual([0, 1]);
    expect(new Set([...other.slice(2), ...ids.flat().slice(2)]).size).toBe(new Set(other.slice(2)).size + new Set(ids.flat().slice(2)).size);
    expect(a.turns.every((t) => t.prefix_block_tokens === 16)).toBe(true);
  });

  it('next() yields the turns of one session after another', async () => {
    const w = await mk({ session_turns: { kind: 'fixed', value: 3 }, random_input_len: 5, random_output_len: 4 });
    const items = Array.from({ length: 7 }, () => w.next());
    expect(items.map((i) => [i.session, i.turn])).toEqual([
      ['s0', 0], ['s0', 1], ['s0', 2], ['s1', 0], ['s1', 1], ['s1', 2], ['s2', 0],
    ]);
  });

  it('completions endpoint: history flattened into the prompt, counted as sent', async () => {
    const w = await mk({ session_turns: { kind: 'fixed', value: 2 }, random_input_len: 5, random_output_len: 4 }, 'completions');
    const [a, b] = w.nextSession!().turns as [WorkItem, WorkItem];
    expect(a.messages).toBeNull();
    expect(b.prompt.startsWith(`${a.prompt}\n\n`)).toBe(true);
    expect(b.prompt_tokens).toBe(estimateCount(b.prompt));
  });
});

describe('multi-turn sessions (dataset conversations)', () => {
  it('replays each user turn with the recorded replies as history', async () => {
    const w = await mk({ dataset_name: 'jsonl', dataset_path: `${FIX}/multiturn.jsonl`, sampling: 'sequential', session_turns: { kind: 'fixed', value: 10 } });
    const s = w.nextSession!();
    expect(s.turns.map((t) => t.prompt)).toEqual(['I want to visit Japan.', 'In April, for the cherry blossoms.', 'Which is less crowded?']);
    expect(s.turns[1]!.messages!.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(s.turns[1]!.messages![2]!.content).toBe('Great choice! When would you like to go?');
    expect(s.turns.map((t) => t.max_tokens)).toEqual([
      estimateCount('Great choice! When would you like to go?'),
      estimateCount('April is perfect. Kyoto and Tokyo are both lovely then.'),
      estimateCount('Kanazawa is quieter.'),
    ]);
    expect(s.turns.every((t) => t.task === 'travel')).toBe(true);
    const short = await mk({ dataset_name: 'jsonl', dataset_path: `${FIX}/multiturn.jsonl`, sampling: 'sequential', session_turns: { kind: 'fixed', value: 2 } });
    expect(short.nextSession!().turns).toHaveLength(2);
  });

  it('sessions are refused where they make no sense', async () => {
    await expect(mk({ dataset_name: 'trace', dataset_path: `${FIX}/mooncake-sample.jsonl`, session_turns: { kind: 'fixed', value: 2 } })).rejects.toThrow(UserError);
  });
});

describe('task mixes', () => {
  const spec = {
    random_output_len: 64,
    tasks: [
      { name: 'chat', weight: 70, random_input_len: 100 },
      { name: 'rag', weight: 20, random_input_len: 2000, random_output_len: 200 },
      { name: 'qa', weight: 10, dataset_name: 'jsonl', dataset_path: `${FIX}/chat.jsonl` },
    ],
  };

  it('picks tasks by weight, labels every item, and each task keeps its own lengths', async () => {
    const w = await mk(spec, 'chat', 9);
    const n = 10000;
    const items = Array.from({ length: n }, () => w.next());
    const counts: Record<string, number> = {};
    for (const it of items) counts[it.task!] = (counts[it.task!] ?? 0) + 1;
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(n);
    // Binomial: σ(chat share) = √(0.7·0.3/10000) ≈ 0.0046 → ±0.02 is > 4σ.
    expect(Math.abs(counts['chat']! / n - 0.7)).toBeLessThan(0.02);
    expect(Math.abs(counts['rag']! / n - 0.2)).toBeLessThan(0.02);
    expect(Math.abs(counts['qa']! / n - 0.1)).toBeLessThan(0.02);
    for (const it of items.slice(0, 200)) {
      if (it.task === 'chat') expect([it.prompt_tokens, it.max_tokens]).toEqual([100, 64]); // inherits random_output_len
      if (it.task === 'rag') expect([it.prompt_tokens, it.max_tokens]).toEqual([2000, 200]);
    }
    const qa = items.filter((i) => i.task === 'qa');
    expect(new Set(qa.map((i) => i.prompt)).size).toBe(4);
    const d = w.describe() as { dataset: string; tasks: Array<Record<string, unknown>> };
    expect(d.dataset).toBe('mix');
    expect(d.tasks.map((t) => [t['name'], t['share'], t['dataset']])).toEqual([
      ['chat', 0.7, 'random'],
      ['rag', 0.2, 'random'],
      ['qa', 0.1, 'jsonl'],
    ]);
    expect(w.skipped).toBe(5); // chat.jsonl's malformed lines
  });

  it("a task's prompts do not change when another task is added", async () => {
    const a = await mk({ tasks: [{ name: 'chat', weight: 1, random_input_len: 20 }] }, 'chat', 3);
    const b = await mk({ tasks: [{ name: 'chat', weight: 1, random_input_len: 20 }, { name: 'x', weight: 1 }] }, 'chat', 3);
    const pa = Array.from({ length: 20 }, () => a.next().prompt);
    const pb = Array.from({ length: 60 }, () => b.next()).filter((i) => i.task === 'chat').map((i) => i.prompt);
    expect(pb.slice(0, 10)).toEqual(pa.slice(0, 10));
  });

  it("tasks' prefix block ids never collide", async () => {
    const w = await mk({ random_prefix_len: 32, random_input_len: 16, tasks: [{ name: 'a', weight: 1 }, { name: 'b', weight: 1 }] }, 'chat', 2);
    const items = Array.from({ length: 40 }, () => w.next());
    const idsOf = (t: string) => new Set(items.filter((i) => i.task === t).flatMap((i) => i.prefix_hash_ids!));
    const [a, b] = [idsOf('a'), idsOf('b')];
    expect(a.size).toBeGreaterThan(2);
    expect([...a].filter((id) => b.has(id))).toEqual([]);
    // Within a task the shared prefix still has one id set: 32 tokens = 2 blocks of 16.
    const firsts = new Set(items.filter((i) => i.task === 'a').map((i) => i.prefix_hash_ids!.slice(0, 2).join()));
    expect(firsts.size).toBe(1);
  });

  it('bad mixes fail the spec or before the run', async () => {
    expect(() => WorkloadSpecSchema.parse({ tasks: [{ name: 'a', weight: 1 }, { name: 'a', weight: 2 }] })).toThrow(/unique/);
    expect(() => WorkloadSpecSchema.parse({ tasks: [{ name: 'a', weight: 0 }] })).toThrow();
    await expect(
      mk({ tasks: [{ name: 't', weight: 1, dataset_name: 'trace', dataset_path: `${FIX}/mooncake-sample.jsonl` }, { name: 'r', weight: 1 }] }),
    ).rejects.toThrow(/trace tasks cannot be mixed/);
    await expect(mk({ tasks: [{ name: 'q', weight: 1, dataset_name: 'jsonl' }] })).rejects.toThrow(/workload.tasks\[0\].dataset_path: required/);
  });

  it('trace tasks merge on one timeline', async () => {
    const w = await mk({
      dataset_name: 'trace',
      tasks: [
        { name: 'a', weight: 1, dataset_path: `${FIX}/mooncake-sample.jsonl` },
        { name: 'b', weight: 1, dataset_path: `${FIX}/mooncake-sample.jsonl`, trace_time_scale: 2 },
      ],
    });
    expect(w.timed!.map((t) => `${t.item.task}@${t.at_ms}`)).toEqual([
      'a@0', 'b@0', 'a@250', 'a@500', 'b@500', 'b@1000', 'a@1200', 'a@2000', 'b@2400', 'b@4000',
    ]);
  });
});
