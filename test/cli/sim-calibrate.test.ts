/**
 * `sim calibrate` end to end, in virtual time: runs of a "server" whose cost parameters are
 * hidden (the simulator with a perturbed profile, saved by `sim run`) are calibrated back to
 * those parameters; the calibrated simulator then predicts a load level it never saw.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { RunResult } from '../../src/report/result-json.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const HIDDEN = { memory_efficiency: 0.7, compute_efficiency: 0.42, request_overhead_ms: 0.05, frontend_latency_ms: 14 };
const profileYaml = (engine: Record<string, number>, hardware = 'h100'): string =>
  `kind: infermeter-sim-profile\nversion: 1\nhardware: ${hardware}\nmodel: llama-3.1-8b\nengine:\n${Object.entries(engine).map(([k, v]) => `  ${k}: ${v}`).join('\n')}\n`;
// Prompt lengths spread over 128–1,920 tokens separate the prefill rate from the front-end latency.
const load = (c: number, n: number): string[] => ['--concurrency', String(c), '--num-prompts', String(n), '--random-input-len', '1024', '--random-range-ratio', '0.875', '--random-output-len', '48', '--quiet'];

describe('sim calibrate', () => {
  const dir = tempDir('calibrate');
  const hidden = join(dir, 'hidden.yaml');
  writeFileSync(hidden, profileYaml(HIDDEN));

  it('recovers hidden parameters within 5% and predicts a held-out load within 10%', async () => {
    const runs: string[] = [];
    for (const [c, n] of [[1, 12], [8, 40], [32, 96]] as const) {
      const resultDir = join(dir, `runs-c${c}`);
      const out = await runCli(['sim', 'run', '--hardware', 'h100', '--sim-profile', hidden, ...load(c, n), '--result-dir', resultDir]);
      expect(out.code, out.stderr).toBe(0);
      runs.push(join(resultDir, readdirSync(resultDir).find((d) => existsSync(join(resultDir, d, 'records.jsonl')))!));
    }
    const fitted = join(dir, 'fitted.yaml');
    const cal = await runCli(['sim', 'calibrate', ...runs, '--hardware', 'h100', '--model', 'llama-3.1-8b', '--out', fitted]);
    expect(cal.code, cal.stderr).toBe(0);
    expect(cal.stdout).toMatch(/fit error/);
    expect(cal.stdout).toMatch(/TTFT\s+before\s+[\d.]+%\s+after\s+[\d.]+%/);
    // What these runs cannot inform, and the twin's (in-sample) error bar with the fitted values.
    expect(cal.stdout).toMatch(/not fitted \(kept at their defaults; what would inform them\):\n {2}step_overhead_ms, cpu_overlap/);
    expect(cal.stdout).toMatch(/twin error on the fitted runs \(in-sample.*error bar over 3 load level\(s\)[^\n]*\n {2}TTFT mean\s+[\d.]+%/);
    const prof = parse(readFileSync(fitted, 'utf8')) as { kind: string; hardware: string; engine: Record<string, number>; fit: { rms_error_after: { ttft: number; tpot: number }; rms_error_before: { ttft: number } } };
    expect(prof.kind).toBe('infermeter-sim-profile');
    expect(prof.hardware).toBe('h100');
    for (const [k, v] of Object.entries(HIDDEN)) expect(Math.abs(prof.engine[k]! / v - 1), k).toBeLessThan(0.05);
    expect(prof.fit.rms_error_after.ttft).toBeLessThan(prof.fit.rms_error_before.ttft);

    // Held out: concurrency 16, never seen by the fit, predicted by the calibrated profile.
    const predict = async (profile: string): Promise<RunResult> => {
      const out = await runCli(['sim', 'run', '--hardware', 'h100', '--sim-profile', profile, ...load(16, 64), '--no-save', '--json']);
      expect(out.code, out.stderr).toBe(0);
      return JSON.parse(out.stdout) as RunResult;
    };
    const truth = (await predict(hidden)).metrics;
    const pred = (await predict(fitted)).metrics;
    const close = (a: number | null, b: number | null): number => Math.abs((a as number) / (b as number) - 1);
    expect(close(pred.latency.ttft_ms.mean, truth.latency.ttft_ms.mean)).toBeLessThan(0.1);
    expect(close(pred.latency.tpot_ms.mean, truth.latency.tpot_ms.mean)).toBeLessThan(0.1);
    expect(close(pred.throughput.output_tokens_per_s, truth.throughput.output_tokens_per_s)).toBeLessThan(0.1);
  }, 120_000);

  it('records the engine preset and multi-step setting of the calibrated runs; loading the profile applies them unless the spec sets its own', async () => {
    // Runs of a vLLM V0 server with multi-step scheduling (and hidden cost parameters).
    const v0 = ['--engine-preset', 'vllm-v0', '--num-scheduler-steps', '4'];
    const runs: string[] = [];
    for (const [c, n] of [[1, 8], [8, 24]] as const) {
      const resultDir = join(dir, `v0-c${c}`);
      const out = await runCli(['sim', 'run', '--hardware', 'h100', '--sim-profile', hidden, ...v0, ...load(c, n), '--result-dir', resultDir]);
      expect(out.code, out.stderr).toBe(0);
      runs.push(join(resultDir, readdirSync(resultDir).find((d) => existsSync(join(resultDir, d, 'records.jsonl')))!));
    }
    const fitted = join(dir, 'fitted-v0.yaml');
    const cal = await runCli(['sim', 'calibrate', ...runs, '--hardware', 'h100', '--model', 'llama-3.1-8b', ...v0, '--out', fitted]);
    expect(cal.code, cal.stderr).toBe(0);
    const prof = parse(readFileSync(fitted, 'utf8')) as Record<string, unknown>;
    expect(prof).toMatchObject({ engine_preset: 'vllm-v0', num_scheduler_steps: 4 });

    // Loaded alone, the profile runs the V0 engine with 4 scheduler steps: spec.json says so, and
    // every record equals that of a run given the same settings as flags.
    const run = async (name: string, extra: string[]) => {
      const resultDir = join(dir, `apply-${name}`);
      const out = await runCli(['sim', 'run', '--hardware', 'h100', '--sim-profile', fitted, ...load(8, 24), '--seed', '3', '--result-dir', resultDir, ...extra]);
      expect(out.code, out.stderr).toBe(0);
      const runDir = join(resultDir, readdirSync(resultDir).find((d) => existsSync(join(resultDir, d, 'records.jsonl')))!);
      const spec = JSON.parse(readFileSync(join(runDir, 'spec.json'), 'utf8')) as { sim: { engine_preset: string; num_scheduler_steps: number | null } };
      const records = readFileSync(join(runDir, 'records.jsonl'), 'utf8');
      return { sim: spec.sim, records };
    };
    const applied = await run('profile', []);
    expect(applied.sim).toMatchObject({ engine_preset: 'vllm-v0', num_scheduler_steps: 4 });
    const explicit = await run('flags', v0);
    expect(applied.records).toBe(explicit.records);
    // Multi-step: chunks of 4 tokens come together, so some gaps between chunk times are 0.
    expect(applied.records).toMatch(/"chunk_ms":\[[^\]]*\b(\d+(?:\.\d+)?),\1\b/);
    // A spec that sets its own engine wins over the profile's.
    const own = await run('own', ['--engine-preset', 'vllm-v1', '--num-scheduler-steps', '1']);
    expect(own.sim).toMatchObject({ engine_preset: 'vllm-v1', num_scheduler_steps: 1 });
    expect(own.records).not.toBe(applied.records);
  }, 120_000);

  it('bad input is a one-line usage error (exit 2)', async () => {
    const missing = await runCli(['sim', 'calibrate', join(dir, 'nope'), '--hardware', 'h100', '--model', 'llama-3.1-8b', '--out', join(dir, 'x.yaml')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/not a run directory/);
    const noHw = await runCli(['sim', 'calibrate', dir, '--model', 'llama-3.1-8b', '--out', join(dir, 'x.yaml')]);
    expect(noHw.code).toBe(2);
    expect(noHw.stderr).toMatch(/--hardware is required/);
    const badHw = await runCli(['sim', 'calibrate', dir, '--hardware', 'h900', '--model', 'llama-3.1-8b', '--out', join(dir, 'x.yaml')]);
    expect(badHw.code).toBe(2);
    expect(badHw.stderr).toMatch(/unknown hardware 'h900'/);
  });

  it('--sim-profile: a profile of other hardware, or a malformed one, is refused with one line', async () => {
    const a100 = join(dir, 'a100.yaml');
    writeFileSync(a100, profileYaml({ memory_efficiency: 0.7 }, 'a100'));
    const other = await runCli(['sim', 'run', '--sim-profile', a100, '--num-prompts', '2', '--no-save']);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/calibrated for hardware 'a100'/);
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, profileYaml({ warp_speed: 9 }));
    const wrong = await runCli(['sim', 'run', '--sim-profile', bad, '--num-prompts', '2', '--no-save']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/--sim-profile: .*engine/);
  });

  it('plan, sim serve and sweep take --sim-profile too (one flag definition, one loader)', async () => {
    const slow = join(dir, 'slow.yaml');
    writeFileSync(slow, profileYaml({ memory_efficiency: 0.4 }));
    const plan = async (extra: string[]): Promise<number> => {
      const out = await runCli(['plan', '--traffic', '20rps', '--slo', 'p95(tpot) < 40ms', '--hardware', 'h100', '--probe-duration', '10s', '--precision', '20%', '--json', ...extra]);
      expect(out.code, out.stderr).toBe(0);
      return (JSON.parse(out.stdout) as { options: { rate_per_replica_rps: number }[] }).options[0]!.rate_per_replica_rps;
    };
    // Half the memory efficiency: slower decode steps, so fewer requests per second meet the TPOT SLO.
    expect(await plan(['--sim-profile', slow])).toBeLessThan(await plan([]));
    const a100 = join(dir, 'a100-serve.yaml');
    writeFileSync(a100, profileYaml({ memory_efficiency: 0.7 }, 'a100'));
    for (const cmd of [['sim', 'serve', '--port', '0'], ['sim', 'sweep', '--no-save', '--concurrencies', '1,2', '--num-prompts', '2']]) {
      const out = await runCli([...cmd, '--sim-profile', a100]);
      expect(out.code, cmd.join(' ')).toBe(2);
      expect(out.stderr).toMatch(/calibrated for hardware 'a100'/);
    }
  }, 60_000);
});
