/**
 * compare and the environment fingerprints (docs/compare.md §Environment): runs measured on
 * different servers get no verdict unless what differs is declared under test (--vary) or forced;
 * client-host differences and runs without a fingerprint never block. Real runs: the simulator
 * in virtual time (H100 vs A100 presets), and a vLLM-like server over HTTP (two engine versions).
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCompleted, runCli } from '../helpers/cli.js';
import { startFakeVllm, type FakeVllm } from '../helpers/fake-vllm.js';
import { tempDir } from '../helpers/temp-dir.js';

const dirOf = (root: string, name: string): string => join(root, readdirSync(root).find((d) => d.endsWith(`-${name}`))!);

describe('compare an H100 run with an A100 run (simulator presets)', () => {
  let a: string;
  let b: string;
  beforeAll(async () => {
    const root = tempDir('env-compare-sim');
    for (const [name, hw] of [['h100', 'h100'], ['a100', 'a100']] as const) {
      const r = await runCli(['sim', 'run', '--hardware', hw, '--request-rate', '4', '--num-prompts', '200', '--seed', '3', '--result-dir', root, '--name', name, '--no-report']);
      if (r.code !== 0) throw new Error(r.stderr);
    }
    a = dirOf(root, 'h100');
    b = dirOf(root, 'a100');
  }, 120_000);

  it('refuses a verdict without --vary gpu: exit 2, one line naming the differing field', async () => {
    const out = await runCli(['compare', a, b, '--resamples', '100']);
    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr.trim().split('\n')).toEqual([
      `error: the server differs between ${a} and ${b} in gpu_model ("NVIDIA H100 SXM 80GB (simulated)" vs "NVIDIA A100 SXM 80GB (simulated)"), which is not declared under test: no verdict. Declare it with --vary gpu_model (or a group: gpu, engine, model), or judge anyway with --force`,
    ]);
  });

  it('with --vary gpu: judged, the fingerprints side by side, the GPU marked under test', async () => {
    const out = await runCli(['compare', a, b, '--resamples', '200', '--vary', 'gpu', '--markdown']);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/gpu_model\s+NVIDIA H100 SXM 80GB \(simulated\)\s+NVIDIA A100 SXM 80GB \(simulated\)\s+differs \(under test: --vary\)/);
    expect(out.stdout).toContain('Environment: declared under test (--vary): gpu_model.');
    // The A100 is slower: the verdicts say so (TTFT p50 is significantly worse on B).
    expect(out.stdout).toMatch(/Verdict: [^\n]*worse: [^\n]*TTFT p50/);
    expect(out.stdout).toContain('| gpu_model | NVIDIA H100 SXM 80GB (simulated) | NVIDIA A100 SXM 80GB (simulated) | differs (under test: --vary) |');
    const json = await runCli(['compare', a, b, '--resamples', '100', '--vary', 'gpu_model', '--json']);
    const pair = (JSON.parse(json.stdout) as { pairs: Array<{ judged: boolean; environment: { blocking: string[]; vary: string[] } }> }).pairs[0]!;
    expect(pair.judged).toBe(true);
    expect(pair.environment.blocking).toEqual([]);
    expect(pair.environment.vary).toEqual(['gpu_model']);
  });

  it('--force judges anyway and says so', async () => {
    const out = await runCli(['compare', a, b, '--resamples', '100', '--force']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('Environment: the server DIFFERS in gpu_model (judged anyway: --force).');
    expect(out.stdout).toMatch(/gpu_model\s+.*\s+DIFFERS/);
  });

  it('--vary with a name that is no field: one line, exit 2', async () => {
    const out = await runCli(['compare', a, b, '--vary', 'gpus']);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/^error: --vary gpus: not a fingerprint field; give one or more of model, engine, gpu, /);
  });
});

// Runs against a server on this busy machine may fail a client check (exit 5 for an invalid run): the
// environment is what is tested here, so the comparisons allow invalid runs.
describe('compare two engine versions over HTTP', () => {
  let old: FakeVllm;
  let upgraded: FakeVllm;
  let root: string;
  beforeAll(async () => {
    old = await startFakeVllm({ version: '0.6.3' });
    upgraded = await startFakeVllm({ version: '0.7.0' });
    root = tempDir('env-compare-http');
    for (const [name, server] of [['old', old], ['new', upgraded], ['same', old]] as const) {
      const r = await runCli(['run', '--base-url', server.url, '--num-prompts', '30', '--request-rate', 'inf', '--random-input-len', '32', '--random-output-len', '4', '--ignore-eos', '--seed', '1', '--no-capacity-check', '--result-dir', root, '--name', name, '--progress', 'none', '--workers', '0', '--no-report']);
      expectCompleted(r);
    }
  }, 120_000);
  afterAll(async () => {
    await old.close();
    await upgraded.close();
  });

  it('refuses on engine_version, judges with --vary engine_version', async () => {
    const refused = await runCli(['compare', dirOf(root, 'old'), dirOf(root, 'new'), '--resamples', '100', '--allow-invalid']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/in engine_version \("0\.6\.3" vs "0\.7\.0"\), which is not declared under test/);
    const judged = await runCli(['compare', dirOf(root, 'old'), dirOf(root, 'new'), '--resamples', '100', '--allow-invalid', '--vary', 'engine_version']);
    expect(judged.code).toBe(0);
    expect(judged.stdout).toMatch(/engine_version\s+0\.6\.3\s+0\.7\.0\s+differs \(under test: --vary\)/);
  });

  it('a client-host difference is shown and never blocks', async () => {
    const b = dirOf(root, 'same');
    const path = join(b, 'result.json');
    const r = JSON.parse(readFileSync(path, 'utf8')) as { environment: { client: { cpu_model: string } } };
    r.environment.client.cpu_model = 'AMD EPYC 9654 96-Core Processor';
    writeFileSync(path, JSON.stringify(r));
    const out = await runCli(['compare', dirOf(root, 'old'), b, '--resamples', '100', '--allow-invalid']);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/cpu_model \(client\)\s+.*\s+AMD EPYC 9654 96-Core Processor\s+differs \(client host: shown, never blocks\)/);
    expect(out.stdout).toContain('Environment: the server side is the same; the client host differs in cpu_model (never blocks).');
  });

  it('a result written before infermeter.result/3 (no environment) is compared, and the page says the environments were not', async () => {
    const b = dirOf(root, 'new');
    const path = join(b, 'result.json');
    const r = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    delete r.environment;
    r.schema = 'infermeter.result/2';
    writeFileSync(path, JSON.stringify(r));
    const out = await runCli(['compare', dirOf(root, 'old'), b, '--resamples', '100', '--allow-invalid']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('Environment: B carries no environment fingerprint (a vLLM result file, or a result or sweep written before fingerprints), so the environments were not compared.');
  });
});
