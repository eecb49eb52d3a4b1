import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { runCli, sink } from '../helpers/cli.js';
import { estimateCount, loadTokenizer } from '../../src/workload/index.js';

describe('infermeter sim serve', () => {
  it('serves the OpenAI API with the requested faults until stopped', async () => {
    const stdout = sink();
    const stderr = sink();
    const ac = new AbortController();
    const exit = main(['sim', 'serve', '--port', '0', '--prefill-ms', '1', '--per-token-ms', '1', '--fault-500-rate', '1'], { stdout, stderr, env: {}, signal: ac.signal });
    for (let i = 0; i < 1000 && !/http:\/\/[\d.]+:\d+/.test(stdout.text); i++) await new Promise((r) => setTimeout(r, 20));
    const url = /http:\/\/[\d.]+:\d+/.exec(stdout.text)![0];
    const models = (await (await fetch(`${url}/v1/models`)).json()) as { data: Array<{ id: string }> };
    expect(models.data[0]!.id).toBe('llama-3.1-8b');
    const res = await fetch(`${url}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'llama-3.1-8b', prompt: 'hi', max_tokens: 2 }) });
    expect(res.status).toBe(500);
    ac.abort();
    expect(await exit).toBe(0);
  });

  it('counts prompt tokens with a real tokenizer when given one', async () => {
    const stdout = sink();
    const ac = new AbortController();
    const exit = main(['sim', 'serve', '--port', '0', '--prefill-ms', '1', '--per-token-ms', '1', '--tokenizer', 'llama3'], { stdout, stderr: sink(), env: {}, signal: ac.signal });
    for (let i = 0; i < 1000 && !/http:\/\/[\d.]+:\d+/.test(stdout.text); i++) await new Promise((r) => setTimeout(r, 20));
    const url = /http:\/\/[\d.]+:\d+/.exec(stdout.text)![0];
    // A text where Llama 3's BPE and the tokenizer-free estimate disagree.
    const prompt = 'Antidisestablishmentarianism, 12345678 and ∑ÅΩ';
    const llama3 = await loadTokenizer('llama3');
    expect(llama3.count(prompt)).not.toBe(estimateCount(prompt));
    const res = await fetch(`${url}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt, max_tokens: 1 }) });
    expect(((await res.json()) as { usage: { prompt_tokens: number } }).usage.prompt_tokens).toBe(llama3.count(prompt));
    ac.abort();
    expect(await exit).toBe(0);
  });

  it('rejects bad flags with one line and exit 2', async () => {
    const out = await runCli(['sim', 'serve', '--fault-500-rate', '2']);
    expect(out.code).toBe(2);
    expect(out.stderr.trim()).toBe('error: --fault-500-rate: expected a fraction between 0 and 1, got "2"');
    const bad = await runCli(['sim', 'serve', '--dialect', 'tgi']);
    expect(bad.stderr).toMatch(/--dialect: expected vllm or llamacpp/);
  });
});
