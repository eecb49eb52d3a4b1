/** Endpoint handling end to end: base URLs as users write them. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import { runCli } from '../helpers/cli.js';

describe('infermeter run against a server', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSimServer({ timing: { kind: 'fixed', prefillMs: 1, perTokenMs: 1 }, modelName: 'm1' });
  });
  afterAll(() => sim.close());

  it.each(['/v1', '/v1/', '/'])('--base-url with a trailing %s (the OpenAI SDK habit) works', async (suffix) => {
    const out = await runCli(['run', '--base-url', `${sim.url}${suffix}`, '--num-prompts', '2', '--random-input-len', '8', '--random-output-len', '2', '--no-save', '--progress', 'none', '--workers', '0']);
    expect(out.stderr).toContain('pre-flight ok');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/2 ok, 0 failed/);
    expect(out.stdout).toContain(`${sim.url}/v1/completions`);
  });
});
