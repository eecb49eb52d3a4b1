/**
 * SLOs end to end: `--slo` and `slos:` decide the exit code (3 when one fails) in `sim run`
 * (virtual time), `run` (real HTTP to the built-in simulator) and `analyze`.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/errors/exit-codes.js';
import type { RunResult } from '../../src/report/result-json.js';
import { runCli } from '../helpers/cli.js';

const dirs: string[] = [];
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'infermeter-slo-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const SIM = ['sim', 'run', '--num-prompts', '60', '--request-rate', '10', '--random-input-len', '128', '--random-output-len', '16', '--no-save'];

describe('SLOs decide the exit code', () => {
  it('sim run: exit 0 when every SLO holds, 3 when one fails; result.json says which and why', async () => {
    const ok = await runCli([...SIM, '--json', '--slo', 'p95(ttft) < 1h', '--slo', 'error_rate <= 0%']);
    expect(ok.code, ok.stderr).toBe(EXIT_CODES.OK);
    const okResult = JSON.parse(ok.stdout) as RunResult;
    expect(okResult.slos!.map((s) => [s.slo, s.pass])).toEqual([['p95(ttft) < 1h', true], ['error_rate <= 0%', true]]);

    // Every TTFT of the simulated engine is above 1 µs: the first SLO cannot hold.
    const bad = await runCli([...SIM, '--json', '--slo', 'p95(ttft) < 1us', '--slo', 'error_rate <= 0%']);
    expect(bad.code).toBe(EXIT_CODES.SLO_FAILED);
    const badResult = JSON.parse(bad.stdout) as RunResult;
    expect(badResult.slos![0]).toMatchObject({ slo: 'p95(ttft) < 0.001ms', pass: false, windows: { total: 1, whole_run: true } });
    expect(badResult.slos![0]!.value).toBe(badResult.metrics.latency.ttft_ms.p95);
    expect(badResult.slos![1]!.pass).toBe(true);
  });

  it('the console summary lists each SLO with PASS/FAIL', async () => {
    const out = await runCli([...SIM, '--slo', 'p95(ttft) < 1us', '--slo', 'p99(tpot) < 1h over 2s >= 90%']);
    expect(out.code).toBe(EXIT_CODES.SLO_FAILED);
    expect(out.stdout).toMatch(/SLOs: 1 of 2 FAILED \(exit code 3\)/);
    expect(out.stdout).toMatch(/FAIL {2}p95\(ttft\) < 0\.001ms/);
    expect(out.stdout).toMatch(/PASS {2}p99\(tpot\) < 1h over 2s >= 90% .* windows met it/);
  });

  it('slos: in the spec file work as --slo does', async () => {
    const dir = tempDir();
    const config = join(dir, 'spec.yaml');
    writeFileSync(config, 'slos:\n  - "p95(ttft) < 1us"\n  - { metric: error_rate, threshold: 0.1% }\n');
    const out = await runCli([...SIM, '--config', config, '--json']);
    expect(out.code).toBe(EXIT_CODES.SLO_FAILED);
    expect((JSON.parse(out.stdout) as RunResult).slos!.map((s) => s.slo)).toEqual(['p95(ttft) < 0.001ms', 'error_rate < 0.1%']);
    writeFileSync(config, 'slos:\n  - "p95(ttfx) < 1s"\n');
    const bad = await runCli([...SIM, '--config', config]);
    expect(bad.code).toBe(EXIT_CODES.USAGE);
    expect(bad.stderr).toMatch(/spec\.yaml: slos\.0: "p95\(ttfx\) < 1s": unknown metric "ttfx"; expected one of ttft/);
  });

  it('a malformed --slo is one line naming the part, exit 2', async () => {
    const out = await runCli([...SIM, '--slo', 'p99(ttfx) < 1s']);
    expect(out.code).toBe(EXIT_CODES.USAGE);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
    expect(out.stderr).toMatch(/^error: --slo: "p99\(ttfx\) < 1s": unknown metric "ttfx"; expected one of /);
    const goodput = await runCli([...SIM, '--slo', 'goodput >= 1']);
    expect(goodput.code).toBe(EXIT_CODES.USAGE);
    expect(goodput.stderr).toMatch(/--goodput/);
  });

  it('run over HTTP, then analyze re-judges the saved SLOs or new ones', async () => {
    const resultDir = tempDir();
    const run = await runCli([
      'run', '--sim-prefill-ms', '30', '--sim-per-token-ms', '2', '--num-prompts', '12', '--request-rate', '50',
      '--random-input-len', '32', '--random-output-len', '8', '--progress', 'none', '--result-dir', resultDir, '--allow-invalid',
      // The fixed 30 ms prefill puts every TTFT above 5 ms.
      '--slo', 'p50(ttft) < 5ms', '--slo', 'error_rate <= 0%',
    ]);
    expect(run.code, run.stderr).toBe(EXIT_CODES.SLO_FAILED);
    const runDir = join(resultDir, readdirSync(resultDir).filter((d) => !d.startsWith('.'))[0]!);
    const saved = JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8')) as RunResult;
    expect(saved.slos!.map((s) => s.pass)).toEqual([false, true]);
    expect(saved.slos![0]!.value!).toBeGreaterThanOrEqual(30);

    // A busy machine can make the saved run invalid (the client fell behind): that is not under test here.
    const again = await runCli(['analyze', runDir, '--json', '--allow-invalid']);
    expect(again.code).toBe(EXIT_CODES.SLO_FAILED);
    // Records on disk keep µs, so values agree to 1e-3 ms.
    const rejudged = (JSON.parse(again.stdout) as RunResult).slos!;
    expect(rejudged.map((s) => [s.slo, s.pass, s.windows])).toEqual(saved.slos!.map((s) => [s.slo, s.pass, s.windows]));
    expect(rejudged[0]!.value!).toBeCloseTo(saved.slos![0]!.value!, 2);
    const relaxed = await runCli(['analyze', runDir, '--slo', 'p50(ttft) >= 30ms', '--allow-invalid']);
    expect(relaxed.code, relaxed.stderr).toBe(EXIT_CODES.OK);
    expect(relaxed.stdout).toMatch(/SLOs: all 1 met/);
  });
});
