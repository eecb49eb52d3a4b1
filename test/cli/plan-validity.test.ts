/**
 * Capacity answers from invalid measurements (issue 30): `plan --from` of an INVALID run is
 * refused (exit 5) unless --allow-invalid, which marks it; flags that do not apply to --from are
 * refused with one line.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/errors/exit-codes.js';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('plan --from an invalid run', () => {
  let sim: SimServer;
  let runDir: string;
  beforeAll(async () => {
    sim = await startSimServer({ timing: { kind: 'fixed', prefillMs: 1, perTokenMs: 1 }, faults: { seed: 3, http500Rate: 0.5 } });
    const results = tempDir('plan-invalid');
    const out = await runCli(['run', '--base-url', sim.url, '--no-preflight', '--model', 'sim-llama-3.1-8b', '--num-prompts', '20', '--request-rate', '20', '--random-input-len', '8', '--random-output-len', '4', '--progress', 'none', '--no-report', '--result-dir', results]);
    expect(out.code, out.stderr).toBe(EXIT_CODES.INVALID_RUN);
    runDir = join(results, readdirSync(results).find((d) => d.endsWith('-run'))!);
  });
  afterAll(() => sim.close());
  const PLAN = () => ['plan', '--traffic', '40rps', '--slo', 'p95(ttft) < 10s', '--from', runDir];

  it('is refused: one line naming the run and why, exit 5', async () => {
    const out = await runCli(PLAN());
    expect(out.code, out.stderr).toBe(EXIT_CODES.INVALID_RUN);
    expect(out.stdout).toBe('');
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
    expect(out.stderr).toContain(`plan: --from ${runDir} is an invalid run (failure rate `);
  });

  it('--allow-invalid accepts it and marks the stage', async () => {
    const out = await runCli([...PLAN(), '--allow-invalid']);
    expect(out.code, out.stderr).toBe(EXIT_CODES.OK);
    expect(out.stdout).toContain('[INVALID, accepted with --allow-invalid: failure rate ');
  });

  it('--hardware with --from, and --gpu-type without --prices, are refused with one line', async () => {
    const hw = await runCli([...PLAN(), '--hardware', 'h100']);
    expect(hw.code).toBe(EXIT_CODES.USAGE);
    expect(hw.stderr).toMatch(/--hardware: applies to the simulator's search, not to --from/);
    const gpu = await runCli([...PLAN(), '--gpu-type', 'h100', '--allow-invalid']);
    expect(gpu.code).toBe(EXIT_CODES.USAGE);
    expect(gpu.stderr).toMatch(/--gpu-type: names the GPU to price from --prices/);
  });
});
