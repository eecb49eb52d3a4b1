/**
 * The simulator fills the environment fingerprint for its model, hardware preset and engine
 * preset: `sim run` (virtual time) renders the texts the simulator serves and reads them with the
 * parser a real server is read with, so it records the same server fields as `run` against the
 * built-in simulator over HTTP.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';
import type { RunResult } from '../../src/report/result-json.js';
import { HARDWARE, modelProfile } from '../../src/sim/index.js';
import { infermeterVersion } from '../../src/session/version.js';
import { expectCompleted, runCli } from '../helpers/cli.js';

const FLAGS = ['--hardware', 'a100', '--tensor-parallel-size', '2', '--num-prompts', '8', '--request-rate', 'inf', '--random-input-len', '64', '--random-output-len', '4', '--no-save', '--json', '--progress', 'none'];

describe('the simulator in the environment fingerprint', () => {
  it('sim run: engine infermeter-sim at this version, the hardware preset as the GPU model, the TP size as the GPU count', async () => {
    const out = await runCli(['sim', 'run', ...FLAGS]);
    expect(out.code).toBe(0);
    const env = (JSON.parse(out.stdout) as RunResult).environment!;
    const a100 = HARDWARE.find((h) => h.id === 'a100')!;
    expect(env.server).toEqual({
      model_id: 'llama-3.1-8b',
      model_root: 'llama-3.1-8b',
      max_model_len: modelProfile('llama-3.1-8b').max_model_len,
      owned_by: 'vllm',
      engine: 'infermeter-sim',
      engine_version: infermeterVersion(),
      engine_settings: { engine_preset: 'vllm-v1', tensor_parallel: '2', timing: 'engine' },
      gpu_model: 'NVIDIA A100 SXM 80GB (simulated)',
      gpu_count: 2,
      gpu_driver: null,
      gpu_memory_mib: Math.round(a100.mem_bytes / 2 ** 20),
    });
    expect(env.unknown.gpu_driver).toBe('the GPU series carry no DCGM_FI_DRIVER_VERSION label');
  });

  it('run against the built-in simulator over HTTP records the same server side as sim run', async () => {
    const virtual = await runCli(['sim', 'run', ...FLAGS]);
    const http = await runCli(['run', ...FLAGS, '--ignore-eos', '--workers', '0', '--no-capacity-check']);
    expectCompleted(http);
    const v = (JSON.parse(virtual.stdout) as RunResult).environment!;
    const h = (JSON.parse(http.stdout) as RunResult).environment!;
    expect(h.server).toEqual(v.server);
    expect(h.sources).toContain('infermeter_sim:engine_info');
  });

  it('sim sweep records it once in sweep.json; every stage of the history carries it, and compare of two sweeps on other GPUs refuses', async () => {
    const results = tempDir('fingerprint-sweep');
    const common = ['sim', 'sweep', '--request-rates', '2,4', '--num-prompts', '10', '--random-input-len', '64', '--random-output-len', '4', '--result-dir', results, '--no-report'];
    for (const hw of ['a100', 'h100']) expect((await runCli([...common, '--hardware', hw, '--name', hw])).code).toBe(0);
    const dirOf = (n: string) => join(results, readdirSync(results).find((d) => d.endsWith(`-${n}`))!);
    const sweep = JSON.parse(readFileSync(join(dirOf('a100'), 'sweep.json'), 'utf8')) as { environment: RunResult['environment'] };
    const run = (JSON.parse((await runCli(['sim', 'run', ...FLAGS.slice(0, 2), '--num-prompts', '8', '--no-save', '--json', '--progress', 'none'])).stdout) as RunResult).environment!;
    expect(sweep.environment!.server).toEqual({ ...run.server });
    const rows = JSON.parse((await runCli(['history', '--results-dir', results, '--where', 'gpu_model=NVIDIA A100 SXM 80GB (simulated)', '--json'])).stdout) as Array<{ kind: string; gpu_model: string }>;
    expect(rows.map((r) => [r.kind, r.gpu_model])).toEqual([
      ['sweep', 'NVIDIA A100 SXM 80GB (simulated)'],
      ['sweep', 'NVIDIA A100 SXM 80GB (simulated)'],
    ]);
    const refused = await runCli(['compare', dirOf('a100'), dirOf('h100'), '--resamples', '50']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/\[stage 0: 2 req\/s\] .* in gpu_model /);
    expect((await runCli(['compare', dirOf('a100'), dirOf('h100'), '--resamples', '50', '--vary', 'gpu'])).code).toBe(0);
  });
});
