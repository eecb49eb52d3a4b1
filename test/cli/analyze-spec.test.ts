/** analyze of a run that wrote no result.json (killed, crashed) takes the run's context from spec.json. */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import type { RunResult } from '../../src/report/result-json.js';
import { expectCompleted, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('analyze reads spec.json when there is no result.json', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSimServer({ timing: { kind: 'fixed', prefillMs: 1, perTokenMs: 1 }, modelName: 'served-model' });
  });
  afterAll(() => sim.close());

  async function runThenDropResult(argv: string[]): Promise<string> {
    const resultDir = tempDir('anspec');
    expectCompleted(await runCli([...argv, '--result-dir', resultDir, '--progress', 'none']));
    const runDir = join(resultDir, readdirSync(resultDir).filter((d) => !d.startsWith('.'))[0]!);
    rmSync(join(runDir, 'result.json'));
    return runDir;
  }

  it('a server run: its URL, endpoint, model, name and SLOs', async () => {
    const runDir = await runThenDropResult([
      'run', '--base-url', sim.url, '--endpoint', '/v1/chat/completions', '--num-prompts', '4', '--request-rate', '100',
      '--random-input-len', '8', '--random-output-len', '3', '--goodput', 'ttft:10s', '--workers', '0', '--name', 'nightly',
    ]);
    const out = await runCli(['analyze', runDir]);
    expectCompleted(out);
    expect(out.stdout).toContain(`== infermeter run: served-model @ ${sim.url}/v1/chat/completions ==`);
    expect(out.stdout).toMatch(/Goodput \(ttft ≤ 10000 ms\)/);
    const json = JSON.parse((await runCli(['analyze', runDir, '--json'])).stdout) as RunResult;
    expect(json.run.name).toBe('nightly');
    expect(json.load).toMatchObject({ num_prompts: 4, request_rate: 100 });
  });

  it('a sim run: the simulated model on the built-in simulator', async () => {
    const runDir = await runThenDropResult(['sim', 'run', '--num-prompts', '5', '--request-rate', '10', '--random-input-len', '16', '--random-output-len', '4']);
    const out = await runCli(['analyze', runDir]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('llama-3.1-8b @ built-in simulator (/v1/completions) ==');
    expect(out.stdout).not.toContain('unknown @');
  });
});
