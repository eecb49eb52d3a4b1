/** Endpoint handling end to end: base URLs as users write them. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import { expectCompleted, runCli } from '../helpers/cli.js';

describe('infermeter run against a server', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSimServer({ timing: { kind: 'fixed', prefillMs: 1, perTokenMs: 1 }, modelName: 'm1' });
  });
  afterAll(() => sim.close());

  it.each(['/v1', '/v1/', '/'])('--base-url with a trailing %s (the OpenAI SDK habit) works', async (suffix) => {
    const out = await runCli(['run', '--base-url', `${sim.url}${suffix}`, '--num-prompts', '2', '--random-input-len', '8', '--random-output-len', '2', '--no-save', '--progress', 'none', '--workers', '0']);
    expect(out.stderr).toContain('pre-flight ok');
    expectCompleted(out);
    expect(out.stdout).toMatch(/2 ok, 0 failed/);
    expect(out.stdout).toContain(`${sim.url}/v1/completions`);
  });
});

describe('OPENAI_BASE_URL (the OpenAI SDK convention)', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSimServer({ timing: { kind: 'fixed', prefillMs: 1, perTokenMs: 1 }, modelName: 'm1' });
  });
  afterAll(() => sim.close());
  const args = ['run', '--num-prompts', '2', '--random-input-len', '8', '--random-output-len', '2', '--no-save', '--progress', 'none', '--workers', '0'];

  it('is the server when no --base-url is given, and the first line says so', async () => {
    const out = await runCli(args, { OPENAI_BASE_URL: `${sim.url}/v1` });
    expectCompleted(out);
    expect(out.stderr.split('\n')[0]).toBe(`target: ${sim.url}/v1 (from OPENAI_BASE_URL), a real server; --base-url chooses another`);
    expect(out.stdout).toContain(`${sim.url}/v1/completions`);
  });

  it('--base-url wins over it, with no line about it', async () => {
    const given = await runCli([...args, '--base-url', sim.url], { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    expectCompleted(given);
    expect(given.stderr).not.toContain('OPENAI_BASE_URL');
    expect(given.stdout).toContain(`${sim.url}/v1/completions`);
  });

  it('sim run never takes it (the simulator is its target by definition)', async () => {
    const out = await runCli(['sim', 'run', '--num-prompts', '2', '--random-input-len', '8', '--random-output-len', '2', '--no-save', '--progress', 'none'], { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    expectCompleted(out);
    expect(out.stderr).not.toContain('OPENAI_BASE_URL');
  });
});

describe('prompt lengths against what the server states and counts', () => {
  let sim: SimServer;
  let charsSim: SimServer;
  beforeAll(async () => {
    sim = await startSimServer({ timing: { kind: 'fixed', prefillMs: 1, perTokenMs: 1 }, modelName: 'm1', maxModelLen: 4096, collectGroundTruth: true });
    // Counts ⌈characters / 4⌉, not the client's word-based estimate (like a real vocabulary would differ).
    charsSim = await startSimServer({ timing: { kind: 'fixed', prefillMs: 1, perTokenMs: 1 }, modelName: 'm1', countTokens: (t) => Math.ceil(t.length / 4) });
  });
  afterAll(async () => {
    await sim.close();
    await charsSim.close();
  });

  const base = ['--num-prompts', '4', '--random-output-len', '2', '--no-save', '--progress', 'none', '--workers', '0'];

  it('prompts beyond the stated context length: one line, exit 2, before any load', async () => {
    const served = sim.groundTruth.length;
    const out = await runCli(['run', '--base-url', sim.url, ...base, '--random-input-len', '5000']);
    expect(out.code).toBe(2);
    expect(sim.groundTruth.length - served).toBe(1); // the pre-flight probe only
    expect(out.stderr.trim().split('\n').at(-1)).toMatch(/^error: workload: prompts of up to 5,000 tokens plus up to 2 output tokens exceed the context length of 4,096 tokens that http:\/\/127\.0\.0\.1:\d+ \(m1\) states/);
  });

  it('--random-input-len 99999999: one line, exit 2, no stack trace, no run files', async () => {
    const out = await runCli(['run', '--base-url', sim.url, ...base, '--random-input-len', '99999999']);
    expect(out.code).toBe(2);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
    expect(out.stderr).toMatch(/random_input_len: at most 10,000,000 tokens/);
  });

  it('without --tokenizer, prompts asked as 256 tokens arrive as ~256 on a server that counts otherwise (/tokenize)', async () => {
    const out = await runCli(['run', '--base-url', charsSim.url, ...base, '--random-input-len', '256', '--json']);
    expectCompleted(out);
    expect(out.stderr).toMatch(/prompt lengths: the server counts 1\.\d+ tokens per estimated token \(its \/tokenize\)/);
    const r = JSON.parse(out.stdout) as { metrics: { tokens: { input_total: number } }; validity: { valid: boolean; reasons: string[] } };
    const mean = r.metrics.tokens.input_total / 4;
    expect(Math.abs(mean / 256 - 1)).toBeLessThan(0.05);
    expect(r.validity.reasons.filter((x) => /prompts were served/.test(x))).toEqual([]);
  });

  it('when served lengths still differ from the asked ones, the summary and the verdict say so', async () => {
    const out = await runCli(['run', '--base-url', charsSim.url, ...base, '--random-input-len', '256', '--no-preflight', '--model', 'm1']);
    expect(out.stdout).toMatch(/prompts were served as \d+ tokens on average where 256 were asked \(\+\d+%\)/);
    expect(out.stdout).not.toMatch(/Run validity: VALID/);
  });
});

describe('the built-in simulator states a context length too', () => {
  it('--max-model-len (vLLM’s serve flag) is stated and enforced before the load', async () => {
    const out = await runCli(['run', '--sim-prefill-ms', '1', '--sim-per-token-ms', '1', '--max-model-len', '1024', '--random-input-len', '2000', '--num-prompts', '2', '--no-save', '--progress', 'none', '--workers', '0']);
    expect(out.code).toBe(2);
    expect(out.stderr.trim().split('\n').at(-1)).toMatch(/prompts of up to 2,000 tokens plus up to 128 output tokens exceed the context length of 1,024 tokens/);
  });
});
