import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors/user-error.js';
import { WorkloadSpecSchema, createWorkload, estimateCount, loadTokenizer } from '../../src/workload/index.js';
import type { WorkItem } from '../../src/workload/index.js';
import { readHf } from '../../src/workload/datasets/hf.js';
import { bufferLines, jsonArrayElements } from '../../src/workload/datasets/json-text.js';
import { parseCsv } from '../../src/workload/datasets/csv.js';
import { tempDir } from '../helpers/temp-dir.js';

const FIX = 'test/fixtures/workload';

async function load(over: Record<string, unknown>, seed = 1) {
  const warnings: string[] = [];
  const w = await createWorkload(WorkloadSpecSchema.parse(over), { seed, endpointKind: 'chat', warn: (m) => warnings.push(m) });
  return { w, warnings };
}
const take = (w: { next(): WorkItem }, n: number) => Array.from({ length: n }, () => w.next());

describe('sharegpt', () => {
  it('first human turn is the prompt, the reply sets max_tokens; malformed entries reported by line', async () => {
    const { w, warnings } = await load({ dataset_name: 'sharegpt', dataset_path: `${FIX}/sharegpt-small.json`, sampling: 'sequential' });
    expect(w.skipped).toBe(2);
    expect(warnings).toEqual([
      `${FIX}/sharegpt-small.json:19: skipped: entry 2: no reply after the first human turn`,
      `${FIX}/sharegpt-small.json:23: skipped: entry 3: first turn is not a non-empty human turn`,
    ]);
    const [a, b, c, again] = take(w, 4);
    expect(a).toMatchObject({ prompt: 'What is the capital of France?', messages: null, max_tokens: estimateCount('The capital of France is Paris.') });
    expect(a!.prompt_tokens).toBe(estimateCount('What is the capital of France?'));
    expect(b!.messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Name three primary colors.' },
    ]);
    expect(b!.max_tokens).toBe(estimateCount('Red, yellow and blue.'));
    expect(c!.prompt).toMatch(/^Write a haiku/);
    expect(again).toEqual(a); // sequential wraps around
    expect(w.describe()).toMatchObject({ dataset: 'sharegpt', entries: 3, skipped: 2, counted: 3, filtered: 0 });
  });

  it('counts with a real tokenizer when given', async () => {
    const tok = await loadTokenizer('llama3');
    const { w } = await load({ dataset_name: 'sharegpt', dataset_path: `${FIX}/sharegpt-small.json`, sampling: 'sequential', tokenizer: 'llama3' });
    const a = w.next();
    expect(a.prompt_tokens).toBe(tok.count('What is the capital of France?'));
    expect(a.max_tokens).toBe(tok.count('The capital of France is Paris.'));
  });

  it('a bad element is skipped alone; a truncated array is one error with file:line', async () => {
    const dir = tempDir('sg');
    const conv = '{"conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "hello there"}]}';
    writeFileSync(join(dir, 'bad.json'), `[\n  {oops},\n  ${conv}\n]\n`);
    const { w, warnings } = await load({ dataset_name: 'sharegpt', dataset_path: join(dir, 'bad.json') });
    expect(w.skipped).toBe(1);
    expect(warnings[0]).toMatch(/bad.json:2: skipped: entry 0: invalid JSON/);
    expect(w.next().prompt).toBe('hi');
    writeFileSync(join(dir, 'cut.json'), `[\n  ${conv},\n  ${conv.slice(0, 30)}`);
    await expect(load({ dataset_name: 'sharegpt', dataset_path: join(dir, 'cut.json') })).rejects.toThrow(/cut.json:3: workload.dataset_path: invalid JSON: unexpected end of file/);
  });

  it('reads one conversation per line (JSONL variant) too', async () => {
    const dir = tempDir('sgl');
    const conv = (q: string) => JSON.stringify({ conversations: [{ from: 'human', value: q }, { from: 'gpt', value: 'ok' }] });
    writeFileSync(join(dir, 'sg.jsonl'), `${conv('one')}\nnot json\n${conv('two')}\n`);
    const { w, warnings } = await load({ dataset_name: 'sharegpt', dataset_path: join(dir, 'sg.jsonl'), sampling: 'sequential' });
    expect([w.next().prompt, w.next().prompt]).toEqual(['one', 'two']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/sg.jsonl:2: skipped: invalid JSON/);
  });

  it('tokenizes lazily: only drawn entries are counted', async () => {
    const { w } = await load({ dataset_name: 'sharegpt', dataset_path: `${FIX}/sharegpt-small.json`, sampling: 'sequential' });
    expect(w.describe()).toMatchObject({ counted: 1 }); // the pre-run check stops at the first usable entry
    take(w, 2);
    expect(w.describe()).toMatchObject({ counted: 2 });
  });
});

describe('jsonl', () => {
  it('reads prompt or messages, max_tokens, expected answer and task; skips malformed lines with file:line', async () => {
    const { w, warnings } = await load({ dataset_name: 'jsonl', dataset_path: `${FIX}/chat.jsonl`, sampling: 'sequential', random_output_len: 50 });
    expect(w.skipped).toBe(5);
    expect(warnings.map((m) => m.split(': skipped: ')[0])).toEqual([5, 6, 7, 8, 9].map((l) => `${FIX}/chat.jsonl:${l}`));
    expect(warnings[1]).toMatch(/no prompt/);
    expect(warnings[2]).toMatch(/max_tokens must be a positive integer/);
    const items = take(w, 4);
    expect(items[0]).toMatchObject({ prompt: 'What is 2 + 2?', max_tokens: 8, expected: '4', task: 'math', messages: null });
    expect(items[1]).toMatchObject({ prompt: 'Color of the sky?', expected: 'blue', task: 'trivia', max_tokens: 50 });
    expect(items[1]!.messages).toHaveLength(2);
    expect(items[1]!.prompt_tokens).toBe(estimateCount('Answer in one word.') + estimateCount('Color of the sky?'));
    expect(items[2]).toMatchObject({ max_tokens: 32, expected: null, task: null });
    expect(items[3]).toMatchObject({ prompt: 'Capital of Japan?', expected: 'Tokyo', task: 'trivia' });
  });

  it('sampling without replacement visits every entry once per pass; with replacement repeats', async () => {
    const { w } = await load({ dataset_name: 'jsonl', dataset_path: `${FIX}/chat.jsonl` }, 3);
    const pass1 = take(w, 4).map((i) => i.prompt);
    const pass2 = take(w, 4).map((i) => i.prompt);
    expect(new Set(pass1).size).toBe(4);
    expect(new Set(pass2).size).toBe(4);
    const { w: r } = await load({ dataset_name: 'jsonl', dataset_path: `${FIX}/chat.jsonl`, sampling: 'with-replacement' }, 3);
    const many = take(r, 40).map((i) => i.prompt);
    expect(new Set(many).size).toBe(4);
    // 40 draws of 4 with replacement: some prompt repeats within the first 4 with p = 1 − 4!/4⁴ ≈ 0.91; over 10 windows surely.
    const windows = Array.from({ length: 10 }, (_, k) => new Set(many.slice(4 * k, 4 * k + 4)).size);
    expect(windows.some((s) => s < 4)).toBe(true);
  });

  it('length filters drop entries; output_len overrides the dataset', async () => {
    const { w } = await load({ dataset_name: 'jsonl', dataset_path: `${FIX}/chat.jsonl`, max_input_len: 6, output_len: { kind: 'fixed', value: 7 } });
    const items = take(w, 10);
    expect(items.every((i) => (i.prompt_tokens as number) <= 6 && i.max_tokens === 7)).toBe(true);
    expect(w.describe()).toMatchObject({ filtered: 2, entries: 4, counted: 4 });
  });

  it('max_total_len drops entries whose input + output is too long', async () => {
    // chat.jsonl: "What is 2 + 2?" = 6 tokens + max_tokens 8 = 14; the summary line: 12 + 32 = 44.
    const { w } = await load({ dataset_name: 'jsonl', dataset_path: `${FIX}/chat.jsonl`, max_total_len: 14 });
    const prompts = new Set(take(w, 20).map((i) => i.prompt));
    expect(prompts.has('What is 2 + 2?')).toBe(true);
    expect([...prompts].some((p) => p.startsWith('Summarize'))).toBe(false);
    expect(prompts.size).toBe(3); // the other two have no output length: kept
  });

  it('no usable line is one error before the run', async () => {
    const dir = tempDir('jl');
    writeFileSync(join(dir, 'bad.jsonl'), 'nope\n{"x": 1}\n');
    const err = await load({ dataset_name: 'jsonl', dataset_path: join(dir, 'bad.jsonl') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(/no usable entry in the jsonl dataset \(2 malformed, 0 outside the length filters\); first problem: .*bad.jsonl:1: /);
    await expect(load({ dataset_name: 'jsonl', dataset_path: join(dir, 'missing.jsonl') })).rejects.toThrow(/cannot read .*missing.jsonl: ENOENT/);
    await expect(load({ dataset_name: 'jsonl' })).rejects.toThrow(/workload.dataset_path: required/);
    await expect(load({ dataset_name: 'jsonl', dataset_path: `${FIX}/chat.jsonl`, min_input_len: 10_000 })).rejects.toThrow(/4 outside the length filters/);
  });
});

describe('hf', () => {
  it('reads a local dataset directory by split (jsonl and csv), offline', async () => {
    const { w, warnings } = await load({ dataset_name: 'hf', dataset_path: `${FIX}/hf-local`, sampling: 'sequential' });
    expect(take(w, 2).map((i) => [i.prompt, i.expected])).toEqual([
      ['Translate to French: good morning', 'bonjour'],
      ['Translate to French: thank you', 'merci'],
    ]);
    expect(w.skipped).toBe(1);
    expect(warnings[0]).toMatch(/train-00000-of-00001.jsonl:3: skipped/);
    const { w: t } = await load({ dataset_name: 'hf', dataset_path: `${FIX}/hf-local`, hf_split: 'test', sampling: 'sequential' });
    expect(take(t, 2).map((i) => [i.prompt, i.expected])).toEqual([
      ['What is the boiling point of water, in Celsius?', '100'],
      ['Say "hi"', 'hi'],
    ]);
  });

  it('reads the rows API (a local server standing in for the hub)', async () => {
    const server = createServer((req, res) => {
      const u = new URL(req.url as string, 'http://x');
      res.setHeader('content-type', 'application/json');
      if (u.pathname === '/splits') res.end(JSON.stringify({ splits: [{ config: 'main', split: 'train' }] }));
      else if (u.pathname === '/rows' && u.searchParams.get('config') === 'main') {
        const offset = Number(u.searchParams.get('offset'));
        const rows = offset === 0 ? Array.from({ length: 100 }, (_, i) => ({ row_idx: i, row: { problem: `p${i}`, solution: `s${i}` } })) : [{ row_idx: 100, row: { nothing: 1 } }];
        res.end(JSON.stringify({ rows, num_rows_total: 101 }));
      } else res.writeHead(404).end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const env = { HF_DATASETS_SERVER: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, HF_HUB_CACHE: '/nonexistent' };
      const spec = WorkloadSpecSchema.parse({ dataset_name: 'hf', dataset_path: 'acme/math' });
      const warnings: string[] = [];
      const r = await readHf(spec, (m: string) => warnings.push(m), env);
      expect(r.entries).toHaveLength(100);
      expect(r.entries[7]).toMatchObject({ prompt: 'p7', expected: 's7' });
      expect(r.issues.skipped).toBe(1);
      expect(warnings[0]).toMatch(/^hf:acme\/math\/main\/train:101: skipped/);
      await expect(readHf(spec, () => {}, { HF_HUB_OFFLINE: '1', HF_HUB_CACHE: '/nonexistent' })).rejects.toThrow(/offline/);
    } finally {
      server.close();
    }
  });
});

describe('parsing helpers', () => {
  it('splits a top-level JSON array into elements with their lines, ignoring brackets in strings', () => {
    const els = (t: string) => [...jsonArrayElements(Buffer.from(t))].map((p) => [p.text, p.line]);
    expect(els('[\n {"a": "[,{\\"}"},\n\n  2,\n  [1,\n2]\n]')).toEqual([
      ['{"a": "[,{\\"}"}', 2],
      ['2', 4],
      ['[1,\n2]', 5],
    ]);
    expect(els(' []')).toEqual([]);
    expect(() => els('[1, 2')).toThrow(/unexpected end of file/);
    expect(() => els('{"a": 1}')).toThrow(/expected a JSON array/);
    expect([...bufferLines(Buffer.from('a\r\nb\n\nc'))]).toEqual([
      { text: 'a', line: 1 },
      { text: 'b', line: 2 },
      { text: '', line: 3 },
      { text: 'c', line: 4 },
    ]);
  });
  it('parses CSV with quotes, doubled quotes, newlines in quotes and CRLF', () => {
    expect(parseCsv('a,b\r\n"x, y","he said ""hi"""\n"multi\nline",2\n')).toEqual([
      { line: 1, cells: ['a', 'b'] },
      { line: 2, cells: ['x, y', 'he said "hi"'] },
      { line: 3, cells: ['multi\nline', '2'] },
    ]);
  });
});
