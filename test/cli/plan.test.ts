import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/errors/exit-codes.js';
import type { PlanReport } from '../../src/report/plan-report.js';
import { runCli } from '../helpers/cli.js';

const tmp = mkdtempSync(join(tmpdir(), 'infermeter-plan-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// Small requests and short probes keep every simulated probe to a fraction of a second.
const LENGTHS = ['--random-input-len', '512', '--random-output-len', '64'];
const SLO = ['--slo', 'p95(tpot) < 20ms'];

async function plan(args: string[]): Promise<PlanReport> {
  const out = await runCli(['plan', ...args, '--json']);
  expect(out.code, out.stderr).toBe(0);
  return JSON.parse(out.stdout) as PlanReport;
}

describe('infermeter plan', () => {
  it('from a hand-checked sweep of saved runs: the sustainable rate, replicas, GPUs and cost', async () => {
    // p95 TPOT at 5, 10, 20 req/s stays under 20 ms on one simulated H100; at 40 req/s it does not.
    for (const rate of [5, 10, 20, 40]) {
      const r = await runCli(['sim', 'run', '--request-rate', String(rate), '--duration', '20s', ...LENGTHS, '--result-dir', tmp, '--name', `r${rate}`, '--json']);
      expect(r.code, r.stderr).toBe(0);
    }
    const dirs = readdirSync(tmp).filter((d) => /-r\d+$/.test(d)).map((d) => join(tmp, d));
    const out = await runCli(['plan', '--traffic', '50rps', ...SLO, '--from', ...dirs, '--gpus-per-replica', '2', '--gpu-hour-cost', '2.5']);
    expect(out.code, out.stderr).toBe(0);
    // The highest stage below the first failure is 20 req/s:
    //   usable = 20 × (1 − 30%) = 14; replicas = ⌈50 / 14⌉ = ⌈3.57⌉ = 4; GPUs = 4 × 2 = 8;
    //   monthly = 8 × $2.50 × 730 h = $14,600.
    expect(out.stdout).toMatch(/40\.00 req\/s ✗ .*p95\(tpot\) < 20ms/);
    expect(out.stdout).toContain('sustainable rate per replica = 20 req/s');
    expect(out.stdout).toContain('replicas                     = ⌈50 / 14⌉ = ⌈3.57⌉ = 4');
    expect(out.stdout).toContain('GPUs                         = 4 replicas × 2 GPUs per replica = 8');
    expect(out.stdout).toContain('monthly cost                 = 8 GPUs × $2.50/GPU-hour × 730 h = $14,600.00');
    const json = await plan(['--traffic', '50rps', ...SLO, '--from', ...dirs, '--gpus-per-replica', '2', '--gpu-hour-cost', '2.5']);
    expect(json.options[0]!.plan!.replicas).toBe(4);
    expect(json.options[0]!.max_input_len).toBe(512);
  });

  it('from the simulator: the plan holds at its load per replica and fails at 1.5× that load', async () => {
    const common = ['--hardware', 'h100', '--model', 'llama-3.1-8b', ...LENGTHS, '--probe-duration', '20s', ...SLO, '--headroom', '0%'];
    const first = await plan(['--traffic', '10rps', ...common]);
    const rate = first.options[0]!.rate_per_replica_rps!;
    expect(rate).toBeGreaterThan(5);
    // Three replicas' worth of traffic with no headroom: each replica gets exactly its sustainable rate.
    const p = await plan(['--traffic', `${3 * rate}rps`, ...common]);
    const o = p.options[0]!;
    expect(o.plan!.replicas).toBe(3);
    const load = o.plan!.load_per_replica_rps;
    expect(load).toBeCloseTo(rate, 9);
    const simAt = (r: number) => runCli(['sim', 'run', '--request-rate', String(r), '--duration', '20s', ...LENGTHS, ...SLO, '--no-save']);
    expect((await simAt(load)).code).toBe(EXIT_CODES.OK);
    expect((await simAt(1.5 * load)).code).toBe(EXIT_CODES.SLO_FAILED);
    expect(o.max_concurrency).toBeGreaterThan(1);
    expect(o.max_input_len).toBeGreaterThanOrEqual(512);
    expect(o.max_output_len).toBeGreaterThanOrEqual(64);
  });

  it('several options ranked by cost; options that can never meet the SLOs say why', async () => {
    const out = await runCli(['plan', '--traffic', '5rps', '--slo', 'p95(tpot) < 60ms', '--model', 'llama-3.1-70b', '--hardware', 'a100,h100', '--tensor-parallel-size', '1,4', ...LENGTHS, '--probe-duration', '10s', '--gpu-hour-cost', '2']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/a100 × TP1\s+cannot meet the SLOs: weights don't fit: 141\.2 GB of weights/);
    expect(out.stdout).toMatch(/h100 × TP1\s+cannot meet the SLOs: weights don't fit/);
    expect(out.stdout).toMatch(/^1\s+h100 × TP4/m);
  });

  it('an SLO no option can meet: the floor is named, one line on stderr, exit 2', async () => {
    const out = await runCli(['plan', '--traffic', '5rps', '--slo', 'p95(tpot) < 1ms', ...LENGTHS]);
    expect(out.code).toBe(EXIT_CODES.USAGE);
    expect(out.stdout).toMatch(/TPOT floor above the SLO: one request alone gives p95\(tpot\) < 1ms: \d+\.\d ms/);
    expect(out.stderr.trim().split('\n').filter((l) => !l.startsWith('plan: h100'))).toEqual(['plan: no option meets the SLOs (reasons above)']);
    const noSlo = await runCli(['plan', '--traffic', '5rps']);
    expect(noSlo.code).toBe(EXIT_CODES.USAGE);
    expect(noSlo.stderr).toMatch(/--slo is required/);
    const badSlo = await runCli(['plan', '--traffic', '5rps', '--slo', 'p95(ttfx) < 1s']);
    expect(badSlo.code).toBe(EXIT_CODES.USAGE);
    expect(badSlo.stderr).toMatch(/ttfx/);
  });
});
